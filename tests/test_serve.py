"""`webfactory serve`: the site over loopback HTTP, for a person."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request

import pytest

from webfactory_env.sitegen import generate_site
from webfactory_env.sitegen.serve import make_server


@pytest.fixture
def server():
    srv = make_server(generate_site("shop", 42).new_app(), port=0)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def _url(srv, path):
    host, port = srv.server_address[:2]
    return f"http://{host}:{port}{path}"


def test_binds_to_loopback_by_default(server):
    assert server.server_address[0] == "127.0.0.1"


def test_pages_boot_the_runtime_with_fetch_transport(server):
    html = urllib.request.urlopen(_url(server, "/shop")).read().decode()
    assert '<script type="application/json" id="wf-boot">' in html
    boot = html.split('id="wf-boot">', 1)[1].split("</script>", 1)[0]
    payload = json.loads(boot.replace("<\\/", "</"))
    assert payload["transport"] == "fetch" and payload["route"] == "/shop"
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(_url(server, "/no/such/page"))
    assert err.value.code == 404


def test_events_return_patches_and_bad_events_get_400(server):
    def post(body: bytes):
        req = urllib.request.Request(
            _url(server, "/__wf/event"), data=body, headers={"content-type": "application/json"}
        )
        return urllib.request.urlopen(req)

    urllib.request.urlopen(_url(server, "/shop")).read()
    patch = json.loads(
        post(
            json.dumps(
                {"type": "change", "handler": "set_filter", "arg": "name=color", "value": "Red"}
            ).encode()
        ).read()
    )
    assert "main" in patch["regions"] and "Color: Red" in patch["regions"]["main"]
    with pytest.raises(urllib.error.HTTPError) as err:
        post(b'{"type": "explode"}')
    assert err.value.code == 400 and "type" in err.value.read().decode()

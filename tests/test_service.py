"""The web-executor service: endpoints, validation, origin checks, dropped privileges, and
(issue 19, cases 1-6) the real server under hostile and slow clients: redaction in every
answer and log line, health checks while a client stalls, JSON for malformed HTTP, a clean
page after a failed navigation, no egress beyond the allow-list, case-insensitive hosts."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from spellings import leaks

pytestmark = pytest.mark.browser


def _closed_to_nobody():
    """Where this install is closed to `nobody` (a checkout under a 0700 directory, say),
    or None. The service refuses to drop to a user who cannot read it."""
    import pwd

    from webfactory_env.service import _needed_after_drop, closed_to

    nobody = pwd.getpwnam("nobody")
    return next((b for p, mode in _needed_after_drop() if (b := closed_to(nobody, p, mode))), None)


CLOSED = _closed_to_nobody() if os.geteuid() == 0 else None


def _start(*args: str, stderr=subprocess.PIPE) -> tuple[subprocess.Popen[str], str]:
    """`webfactory executor serve ARGS` on a free loopback port; (process, base URL)."""
    env = {**os.environ, "WEB_EXECUTOR_BIND_ADDR": "127.0.0.1:0"}
    # Root with an install `nobody` cannot read: the endpoints are tested with root kept.
    user = ["--user", "root"] if CLOSED is not None else []
    proc = subprocess.Popen(
        [sys.executable, "-m", "webfactory_env.cli", "executor", "serve", *user, *args],
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        env=env,
    )
    line = ""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and "listening on" not in line:
        line = proc.stdout.readline()
        if not line and proc.poll() is not None:
            raise AssertionError("the service died before listening")
    return proc, line.strip().rsplit(" ", 1)[-1].rstrip("/")


def _stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="module")
def service():
    proc, url = _start()
    yield url
    _stop(proc)


def _get(url):
    with urllib.request.urlopen(url, timeout=60) as r:
        return r.status, json.loads(r.read())


def _post(url, body):
    req = urllib.request.Request(
        url, data=body if isinstance(body, bytes) else json.dumps(body).encode(), method="POST"
    )
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_binds_to_loopback_and_answers_health_and_sandbox(service):
    assert service.startswith("http://127.0.0.1:")
    assert _get(f"{service}/healthz") == (200, {"status": "ok"})
    status, sandbox = _get(f"{service}/sandbox")
    assert status == 200 and sandbox["headless"] and sandbox["browser_version"]
    assert sandbox["open_contexts"] >= 1
    assert sandbox["allowed_origins"] == ["https://site.webfactory.test"]


@pytest.mark.skipif(os.geteuid() != 0, reason="privileges are dropped only when started as root")
def test_started_as_root_it_runs_as_an_unprivileged_user(service):
    if CLOSED is not None:
        # `test_bad_input` checks the refusal; here is the refusal from the real command.
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "webfactory_env.cli",
                "executor",
                "serve",
                "--bind",
                "127.0.0.1:0",
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert out.returncode == 2 and f"{CLOSED} is closed to it" in out.stderr
        pytest.skip(f"this checkout is closed to nobody at {CLOSED}: the drop cannot run here")
    _, sandbox = _get(f"{service}/sandbox")
    assert sandbox["privileges_dropped"] and sandbox["user"] == "nobody" and sandbox["uid"] != 0
    cache = Path(sandbox["cache_dir"])
    assert cache.stat().st_uid == sandbox["uid"]


def test_execute_fills_submits_and_redacts(service):
    status, out = _post(
        f"{service}/execute",
        {
            "url": "https://site.webfactory.test/track",
            "fields": [{"selector": "[name=number]", "value": "TRK-SECRET-1", "redact": True}],
            "submit": {"selector": "button[type=submit]"},
            "snapshot_selector": "main",
        },
    )
    assert status == 200 and out["submitted"]
    assert out["fields"][0]["value"] == "REDACTED" and "TRK-SECRET-1" not in json.dumps(out)
    assert "no shipment" in out["excerpt"]


def test_bad_payloads_get_400_with_field_errors(service):
    status, out = _post(
        f"{service}/execute",
        {
            "url": "https://site.webfactory.test/",
            "fields": [{"selector": "#a", "value": 3}],
            "submit": {"selector": "b", "kind": "tap"},
        },
    )
    assert status == 400
    assert {f["field"] for f in out["fields"]} == {"fields.0.value", "submit.kind"}
    status, out = _post(f"{service}/execute", b"{not json")
    assert status == 400 and "not JSON" in out["error"]
    for url in ("https://example.com/", "http://127.0.0.1:1/", "file:///etc/passwd"):
        status, out = _post(f"{service}/execute", {"url": url})
        assert status == 400 and out["fields"][0]["field"] == "url"


def test_exhausted_selectors_get_422(service):
    status, out = _post(
        f"{service}/execute",
        {
            "url": "https://site.webfactory.test/track",
            "fields": [{"selector": "#qqq-zzz", "value": "x"}],
        },
    )
    assert status == 422 and out["error"] == "SelectorsExhausted" and out["attempts"] == 0


# ------------------------------------------------- issue 19: the real server, hostile
SECRET = "TOPSECRET-4242-XYZ"


class Listener:
    """A TCP and a UDP socket on one loopback port that record whatever reaches them."""

    def __init__(self) -> None:
        self.tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.tcp.bind(("127.0.0.1", 0))
        self.tcp.listen(64)
        self.port = self.tcp.getsockname()[1]
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", self.port))
        self.heard: list[str] = []
        threading.Thread(target=self._accept, daemon=True).start()
        threading.Thread(target=self._receive, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.tcp.accept()
            except OSError:
                return
            conn.settimeout(1)
            try:
                self.heard.append("tcp " + conn.recv(200).decode(errors="replace"))
            except OSError:
                self.heard.append("tcp")
            conn.close()

    def _receive(self) -> None:
        while True:
            try:
                self.heard.append("udp " + repr(self.udp.recvfrom(64)[0][:16]))
            except OSError:
                return

    def close(self) -> None:
        self.tcp.close()
        self.udp.close()


PROBE_PAGE = """<!doctype html><html><body><main><p id=state>probing</p></main><script>
const other = "127.0.0.1:%(other)d";
const settle = (p) => Promise.race([p, new Promise(r => setTimeout(() => r("timeout"), 4000))]);
const element = (tag, src) => new Promise(r => {
  const e = document.createElement(tag); e.src = src;
  e.onload = () => r("load"); e.onerror = () => r("error"); document.body.appendChild(e);
});
const probes = {
  websocket: new Promise(r => { try { const w = new WebSocket("ws://" + other + "/ws");
    w.onopen = () => r("open"); w.onerror = () => r("error"); } catch (e) { r("refused"); } }),
  fetch_direct: fetch("http://" + other + "/direct").then(() => "reached", () => "blocked"),
  fetch_302: fetch("/r302?to=fetch").then(x => "answered " + x.status, () => "blocked"),
  img_302: element("img", "/r302?to=img"),
  iframe_302: element("iframe", "/r302?to=frame"),
  webtransport: (async () => { try { const t = new WebTransport("https://" + other + "/wt");
    await t.ready; return "open"; } catch (e) { return "error"; } })(),
};
const names = Object.keys(probes);
const done = Promise.all(names.map(n => settle(probes[n]))).then(results => {
  const out = Object.fromEntries(names.map((n, i) => [n, results[i]]));
  document.getElementById("state").textContent = JSON.stringify(out);
});
// The executor waits for `__wf.settled()` before its snapshot (the sites' own hook): the
// browser's requests are served only while the executor is inside a browser call.
window.__wf = {settled: () => done.then(() => true)};
</script></body></html>"""


class Site:
    """The allowed origin of the tests: plain pages, redirects to the listener's port, a
    page that keeps navigating away, and the probe page."""

    def __init__(self, other: int) -> None:

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _send(self, status: int, body: str, **headers: str) -> None:
                data = body.encode()
                self.send_response(status)
                for k, v in {"Content-Type": "text/html", **headers}.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path.startswith("/r302"):
                    to = self.path.split("to=", 1)[-1]
                    self._send(302, "", Location=f"http://127.0.0.1:{other}/{to}")
                elif self.path == "/probe":
                    self._send(200, PROBE_PAGE % {"other": other})
                elif self.path == "/refresh":  # a same-origin refresh, at once
                    refresh = '<meta http-equiv="refresh" content="0; url=/landed">'
                    self._send(200, f"<html><head>{refresh}</head><main>wait</main></html>")
                elif self.path == "/leave":  # a script that leaves the allow-list at once
                    script = f"location.href = 'http://127.0.0.1:{other}/x'"
                    self._send(200, f"<main>leaving</main><script>{script}</script>")
                elif self.path.startswith("/form"):  # a GET form, its field cut at 6 if asked
                    cut = " maxlength=6" if "short" in self.path else ""
                    action = "/slow-echo" if "slow" in self.path else "/echo"
                    self._send(
                        200,
                        f"<main><form action={action}><input name=pw{cut}>"
                        "<button type=submit>go</button></form></main>",
                    )
                elif self.path.startswith("/slow-echo"):  # its head at once, its body later
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html")
                    self.end_headers()
                    self.wfile.write(b"<!doctype html><html><head><title>slow</title>")
                    self.wfile.flush()
                    time.sleep(0.8)
                    self.wfile.write(b"</head><body><main><p>arrived</p><input name=later></main>")
                    self.close_connection = True
                elif self.path.startswith("/echo"):  # says back what was typed, escaped
                    from html import escape
                    from urllib.parse import parse_qs, urlsplit

                    typed = parse_qs(urlsplit(self.path).query).get("pw", [""])[0]
                    data = json.dumps({"pw": typed})
                    self._send(
                        200,
                        f"<main><p>You typed {escape(typed)}</p>"
                        f'<input name=again value="{escape(typed)}">'
                        f"<p data-json='{escape(data)}'>{escape(data)}</p>"
                        f"<p>{escape(typed.upper())}</p></main>",
                    )
                elif self.path == "/navloop":
                    script = (
                        f"setInterval(() => {{ location.href = 'http://127.0.0.1:{other}/x' }}, 20)"
                    )
                    self._send(200, f"<main>away</main><script>{script}</script>")
                else:
                    self._send(200, "<main><input name=q><p>allowed page</p></main>")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def listener():
    made = Listener()
    yield made
    made.close()


@pytest.fixture(scope="module")
def site(listener):
    made = Site(listener.port)
    yield made
    made.close()


@pytest.fixture(scope="module")
def hardened(site, tmp_path_factory):
    """The service allowed onto the test site (named in upper case), with short header and
    body timeouts, its log in a file."""
    log = tmp_path_factory.mktemp("service") / "stderr.log"
    with log.open("w") as stderr:
        proc, url = _start(
            "--allow-origin",
            f"http://LOCALHOST:{site.port}",
            "--header-timeout",
            "2",
            "--body-timeout",
            "2",
            stderr=stderr,
        )
    yield url, log
    _stop(proc)


def _raw(url: str, data: bytes, read_timeout: float = 60) -> bytes:
    """Send raw bytes to the service; everything it answers until it closes."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=read_timeout) as sock:
        sock.sendall(data)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def _status_and_json(raw: bytes) -> tuple[int, dict]:
    head, _, body = raw.partition(b"\r\n\r\n")
    assert b"content-type: application/json" in head.lower(), head
    return int(head.split()[1]), json.loads(body)


def test_redacted_values_never_come_back_in_any_answer_or_log_line(hardened):
    """Case 1: a failing fill (the element is no field) answers 422 in our words, not
    Playwright's call log; neither it nor a 400 about the payload echoes the value."""
    url, log = hardened
    fill = {"selector": "main", "value": SECRET, "redact": True}
    status, out = _post(
        f"{url}/execute", {"url": "https://site.webfactory.test/track", "fields": [fill]}
    )
    assert status == 422 and out["kind"] == "not_editable" and out["stage"] == "fill"
    assert out["error"] == (
        "fill 'main': the element is not an editable field"
        " (input, textarea, select, contenteditable)"
    )
    status, out2 = _post(
        f"{url}/execute",
        {
            "url": "https://site.webfactory.test/track",
            "fields": [fill],
            "submit": {"selector": SECRET, "kind": "tap"},
        },
    )
    assert status == 400
    # A selector that holds the value, on a page that shows it: still REDACTED.
    status, out3 = _post(
        f"{url}/execute",
        {
            "url": "https://site.webfactory.test/track",
            "fields": [{"selector": f"#{SECRET}", "value": SECRET, "redact": True}],
        },
    )
    assert status == 422 and "REDACTED" in json.dumps(out3)
    for answer in (out, out2, out3):
        text = json.dumps(answer)
        assert SECRET not in text and "Call log" not in text
    assert SECRET not in log.read_text()


def test_health_checks_are_answered_while_clients_stall_and_the_browser_works(hardened):
    """Case 2: one socket sent half a header, one nothing, and a payload keeps the browser
    busy: 50 concurrent health checks are all answered; the stalled sockets get a 408 and
    are closed, and so does a body that stops arriving."""
    url, _ = hardened
    host, port = url.removeprefix("http://").split(":")
    stalled = [socket.create_connection((host, int(port))) for _ in range(2)]
    stalled[0].sendall(b"POST /execute HTTP/1.1\r\nHost: x\r\nContent-Le")
    busy = {
        "url": "https://site.webfactory.test/track",
        "fields": [{"selector": "[name=nope-zz]", "value": "x"}],
    }
    with ThreadPoolExecutor(60) as pool:
        working = pool.submit(_post, f"{url}/execute", busy)
        health = list(pool.map(lambda _: _get(f"{url}/healthz"), range(50)))
        assert working.result()[0] == 422
    assert health == [(200, {"status": "ok"})] * 50
    for sock in stalled:
        sock.settimeout(60)
        answer = b"".join(iter(lambda s=sock: s.recv(65536), b""))
        status, body = _status_and_json(answer)
        assert status == 408 and "request head" in body["error"]
        sock.close()
    status, body = _status_and_json(
        _raw(url, b'POST /execute HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"url"')
    )
    assert status == 408 and "body" in body["error"]


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"POST /execute HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}",
        b"POST /execute HTTP/1.1\r\nHost: x\r\nContent-Length: 1e3\r\n\r\n{}",
        b"GARBAGE\r\n\r\n",
    ],
    ids=["length-abc", "length-1e3", "no-request-line"],
)
def test_malformed_http_gets_a_400_with_a_json_body(hardened, request_bytes):
    """Case 3: malformed requests get 400 and JSON, never a dropped connection."""
    status, body = _status_and_json(_raw(hardened[0], request_bytes))
    assert status == 400 and body["error"] == "malformed HTTP request"


def test_deep_json_big_bodies_and_other_methods_get_json_errors(hardened):
    url, _ = hardened
    status, out = _post(f"{url}/execute", b"[" * 100_000)
    assert status == 400 and "nested too deeply" in out["error"]
    status, out = _post(f"{url}/execute", b'{"url": "' + b"x" * 300_000 + b'"}')
    assert status == 413 and "at most" in out["error"]
    for method in ("PUT", "DELETE", "HEAD"):
        raw = _raw(
            url, f"{method} /execute HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n".encode()
        )
        assert raw.split()[1] == b"405" and b"allow: POST" in raw.lower().replace(
            b"allow: post", b"allow: POST"
        )
        if method != "HEAD":
            assert (
                json.loads(raw.partition(b"\r\n\r\n")[2])["error"]
                == f"method {method} not allowed here"
            )
    status, schema = _get(f"{url}/openapi.json")
    assert status == 200 and schema["openapi"].startswith("3.")
    assert {"WebPayload", "WebOutcome", "ErrorBody"} <= set(schema["components"]["schemas"])
    post = schema["paths"]["/execute"]["post"]
    assert post["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/WebPayload"
    )


def test_a_failed_navigation_leaves_a_clean_page_for_the_next_requests(hardened, site):
    """Case 4: a navigation refused mid-redirect, and a page that keeps navigating to a
    refused address: the next valid requests all succeed."""
    url, _ = hardened
    status, out = _post(f"{url}/execute", {"url": f"http://localhost:{site.port}/r302?to=nav"})
    assert status == 502 and out["kind"] == "refused"
    _post(f"{url}/execute", {"url": f"http://localhost:{site.port}/navloop"})
    valid = {
        "url": "https://site.webfactory.test/track",
        "fields": [{"selector": "[name=number]", "value": "TRK1"}],
    }
    results = [_post(f"{url}/execute", valid) for _ in range(3)]
    assert [status for status, _ in results] == [200, 200, 200]


def test_nothing_reaches_an_address_outside_the_allow_list(hardened, site, listener):
    """Case 5: a page on the allowed origin tries another loopback port by WebSocket,
    WebTransport, a direct fetch, and a same-origin fetch, image and frame answered with a
    302 to that port: every attempt fails and the other port hears nothing."""
    url, _ = hardened
    probe = {"url": f"http://localhost:{site.port}/probe", "snapshot_selector": "#state"}
    status, out = _post(f"{url}/execute", probe)
    assert status == 200
    report = json.loads(out["excerpt"].split(">", 1)[1].rsplit("<", 1)[0])
    assert set(report) == {
        "websocket",
        "fetch_direct",
        "fetch_302",
        "img_302",
        "iframe_302",
        "webtransport",
    }
    assert report["websocket"] in ("error", "refused") and report["webtransport"] == "error"
    assert report["fetch_direct"] == "blocked" and report["fetch_302"] == "blocked"
    assert report["img_302"] == "error"
    time.sleep(1)  # not a timing: a last chance for a straggler to show up in the listener
    assert listener.heard == []


def test_allowed_hosts_compare_case_insensitively(hardened, site):
    """Case 6: allowed as LOCALHOST, reached as localhost, LocalHost, or 127.0.0.1 when the
    allow-list says so, and nothing else."""
    url, _ = hardened
    for target in (
        f"http://localhost:{site.port}/",
        f"HTTP://LocalHost:{site.port}/ok",
        f"http://localhost.:{site.port}/",
    ):
        status, out = _post(f"{url}/execute", {"url": target})
        assert status == 200 and "allowed page" in out["excerpt"], (target, out)
    status, out = _post(f"{url}/execute", {"url": f"http://localhost:{site.port + 1}/"})
    assert status == 400 and out["fields"][0]["field"] == "url"
    status, sandbox = _get(f"{url}/sandbox")
    assert sandbox["allowed_origins"] == [
        "https://site.webfactory.test",
        f"http://localhost:{site.port}",
    ]


# ------------------------------------------------------------------------- issue 27
TYPED = 'Tom&Jerry<3"pass word!'


@pytest.mark.parametrize("form", ["form", "form-short"])
def test_a_redacted_value_never_comes_back_in_any_spelling(hardened, site, form):
    """A GET form puts the value in `final_url` (form-encoded), the page echoes it
    HTML-escaped in text and in an attribute, JSON-escaped, upper-cased; a `maxlength=6`
    field keeps its first 6 characters: none of it comes back, nor reaches the log."""
    url, log = hardened
    payload = {
        "url": f"http://localhost:{site.port}/{form}",
        "fields": [{"selector": "[name=pw]", "value": TYPED, "redact": True}],
        "submit": {"selector": "button[type=submit]"},
    }
    status, out = _post(f"{url}/execute", payload)
    assert status == 200 and out["submitted"], out
    assert "/echo?pw=REDACTED" in out["final_url"], out["final_url"]
    assert "REDACTED" in out["excerpt"] and "You typed" in out["excerpt"]
    assert leaks(TYPED, json.dumps(out), out["final_url"], out["excerpt"]) == []
    assert leaks(TYPED, log.read_text()) == []


def test_a_submit_whose_next_page_is_still_arriving_is_read_once_it_has_arrived(hardened, site):
    """The form's next page sends its head at once and its body 0.8 s later: the click
    returns once the new document is committed, when it has no body yet. The snapshot reads
    the page that arrived (it once failed 422 `failed` there, reading a document with no
    body: seen in CI under load)."""
    url, _ = hardened
    payload = {
        "url": f"http://localhost:{site.port}/form-slow",
        "fields": [{"selector": "[name=pw]", "value": "abc"}],
        "submit": {"selector": "button[type=submit]"},
    }
    status, out = _post(f"{url}/execute", payload)
    assert status == 200 and out["submitted"], out
    assert "/slow-echo?pw=abc" in out["final_url"]
    assert out["title"] == "slow" and "arrived" in out["excerpt"], out


def test_a_read_of_a_document_still_arriving_waits_for_it(site):
    """The other route to the same moment: a navigation that commits after the payload's
    settling (a script's, a refresh's), so the snapshot itself meets a document with no
    body. The executor's page reads (the snapshot's excerpt, the candidates a selector is
    looked for among) wait for the document they read."""
    from webfactory_env.executor.web import WebExecutor
    from webfactory_env.sitegen import generate_site

    ex = WebExecutor(generate_site("shop", 42), allowed_origins=[f"http://localhost:{site.port}"])
    try:
        page = ex.session.page
        for op in ("excerpt", "candidates"):
            page.goto(f"http://localhost:{site.port}/slow-echo?pw=x", wait_until="commit")
            arg = {"op": op, "selector": "main", "redact": [], "max": 2000}
            read = ex._inspect(arg)
            if op == "excerpt":
                assert "arrived" in read and 'name="later"' in read, read
            else:  # the field the document brings
                assert [c["name"] for c in read] == ["later"], read
            assert page.evaluate("document.readyState") != "loading"
    finally:
        ex.close()


@pytest.mark.parametrize("flag", ["true", 1, "yes", None, [True]])
def test_redact_takes_a_json_boolean_only(hardened, flag):
    url, log = hardened
    status, out = _post(
        f"{url}/execute",
        {
            "url": "https://site.webfactory.test/track",
            "fields": [{"selector": "[name=number]", "value": TYPED, "redact": flag}],
        },
    )
    assert status == 400 and out["fields"] == [
        {"field": "fields.0.redact", "message": "Input should be a valid boolean"}
    ]
    assert leaks(TYPED, json.dumps(out), log.read_text()) == []


def test_a_page_that_refreshes_itself_is_waited_for(hardened, site):
    url, _ = hardened
    status, out = _post(f"{url}/execute", {"url": f"http://localhost:{site.port}/refresh"})
    assert status == 200, out
    assert out["final_url"] == f"http://localhost:{site.port}/landed"
    assert "allowed page" in out["excerpt"]


def test_a_page_whose_script_leaves_the_allowed_origins_is_502_refused(hardened, site):
    url, _ = hardened
    status, out = _post(f"{url}/execute", {"url": f"http://localhost:{site.port}/leave"})
    assert status == 502 and out["kind"] == "refused", out
    assert "chrome-error" not in json.dumps(out)
    assert out["error"].startswith("navigate: the page navigated away from the allowed origins")
    # The next payload starts on a clean page.
    status, out = _post(f"{url}/execute", {"url": f"http://localhost:{site.port}/"})
    assert status == 200 and "allowed page" in out["excerpt"]


def test_a_client_that_goes_away_mid_body_is_one_log_line(hardened):
    url, log = hardened
    before = log.read_text().splitlines()
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port))) as sock:
        sock.sendall(b'POST /execute HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"url"')
        time.sleep(0.3)  # the service is inside the body read when the client leaves
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and "went away" not in log.read_text():
        time.sleep(0.1)  # waits for the log line itself, not for a duration
    assert _get(f"{url}/healthz")[0] == 200
    new = log.read_text().splitlines()[len(before) :]
    assert new == [
        "INFO webfactory.executor_web: execute: the client went away after 6 of 100 body bytes"
    ], new


@pytest.mark.parametrize("size", [17 * 1024, 24 * 1024, 120 * 1024])
def test_the_request_head_limit_holds_however_the_head_arrives(hardened, size):
    """A head larger than 16 KiB sent in one write (h11 counts only what is still
    incomplete after a read) gets 431 and the connection closes; one a little under the
    limit is served."""
    url, _ = hardened
    filler = b"a" * (size - 100)
    raw = _raw(
        url,
        b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + filler + b"\r\nConnection: close\r\n\r\n",
    )
    status, body = _status_and_json(raw)
    assert status == 431 and "at most 16384 bytes" in body["error"]
    fine = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 15_000 + b"\r\n"
    status, body = _status_and_json(_raw(url, fine + b"Connection: close\r\n\r\n"))
    assert (status, body) == (200, {"status": "ok"})

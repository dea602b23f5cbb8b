"""No egress: a generated site cannot reach anything but its fake origin.

Requests are injected from the env's live page — every way a page can open a connection:
`fetch`, XHR, `<img>`, `<script>`, a stylesheet, `<video>`, `<iframe>`, a form submitted
into a frame, `EventSource`, `WebSocket`, `navigator.sendBeacon`, a worker's `fetch`,
`window.open`, WebRTC (STUN/TURN) and WebTransport — at a public address and name,
private-range addresses, and loopback ports where real listeners record every connection
and datagram. Every attempt must fail in the page and no listener may hear anything.
"""

from __future__ import annotations

import argparse
import contextlib
import socket
import threading
from collections.abc import Iterator

import pytest

from webfactory_env import cli
from webfactory_env.service import parse_bind

pytestmark = pytest.mark.browser

PUBLIC_IP = "https://93.184.216.34"
PUBLIC_NAME = "https://egress-check.example.invalid"
PRIVATE = ("http://10.0.0.1", "http://192.168.1.1")

PROBE = """
async ({target, udp}) => {
  const settle = (p, ms = 3000) =>
    Promise.race([p, new Promise(r => setTimeout(() => r("timeout"), ms))]);
  const element = (tag, attrs, events = ["load", "error"]) => new Promise(r => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    for (const n of events) e.addEventListener(n, () => r(n));
    document.body.appendChild(e);
  });
  const u = target + "/probe";
  const ws = target.replace(/^http/, "ws") + "/probe/ws";
  const probes = {
    fetch: fetch(u).then(x => "reached " + x.status, () => "blocked"),
    fetch_post: fetch(u, {method: "POST", body: "x", mode: "no-cors"})
      .then(() => "reached", () => "blocked"),
    xhr: new Promise(r => {
      const x = new XMLHttpRequest();
      x.open("GET", u + "/xhr");
      x.onload = () => r("reached");
      x.onerror = () => r("blocked");
      x.send();
    }),
    img: element("img", {src: u + "/img"}),
    script: element("script", {src: u + "/script"}),
    stylesheet: element("link", {rel: "stylesheet", href: u + "/css"}),
    video: element("video", {src: u + "/video", preload: "auto"}, ["loadeddata", "error"]),
    iframe: element("iframe", {src: u + "/frame"}),
    form: new Promise(r => {
      const sink = document.createElement("iframe");
      sink.name = "sink-" + Math.random().toString(36).slice(2);
      document.body.appendChild(sink);
      const form = document.createElement("form");
      Object.assign(form, {action: u + "/form", method: "POST", target: sink.name});
      const field = document.createElement("input");
      Object.assign(field, {name: "q", value: "secret"});
      form.appendChild(field);
      document.body.appendChild(form);
      sink.addEventListener("load", () => {
        let body = "unreadable";
        try { body = sink.contentDocument.body.innerText; } catch (e) {}
        r("loaded: " + body.slice(0, 40));
      });
      form.submit();
    }),
    eventsource: new Promise(r => {
      const e = new EventSource(u + "/sse");
      e.onopen = () => r("open");
      e.onerror = () => { e.close(); r("error"); };
    }),
    websocket: new Promise(r => {
      try {
        const w = new WebSocket(ws);
        w.onopen = () => r("open");
        w.onerror = () => r("error");
      } catch (e) { r("refused: " + e.name); }
    }),
    beacon: Promise.resolve(navigator.sendBeacon(u + "/beacon", "data") ? "queued" : "refused"),
    worker: new Promise(r => {
      const code = `fetch(${JSON.stringify(u + "/worker")})` +
        `.then(() => postMessage("reached"), () => postMessage("blocked"))`;
      const w = new Worker(URL.createObjectURL(new Blob([code], {type: "text/javascript"})));
      w.onmessage = e => r(e.data);
      w.onerror = () => r("error");
    }),
    popup: Promise.resolve(window.open(u + "/popup") ? "opened" : "refused"),
    webrtc: new Promise(r => {
      const host = new URL(target).hostname;
      const pc = new RTCPeerConnection({iceServers: [
        {urls: `stun:${host}:${udp}`},
        {urls: `turn:${host}:${udp}?transport=udp`, username: "u", credential: "c"},
        {urls: `turn:${host}:${udp}?transport=tcp`, username: "u", credential: "c"},
      ]});
      const found = [];
      pc.onicecandidate = e => {
        if (e.candidate) found.push(e.candidate.type);
        else { pc.close(); r("gathered: " + found.join(",")); }
      };
      pc.createDataChannel("x");
      pc.createOffer().then(o => pc.setLocalDescription(o));
    }),
    webtransport: (async () => {
      try {
        const t = new WebTransport(`https://${new URL(target).host}/probe/wt`);
        await t.ready;
        return "open";
      } catch (e) { return "error"; }
    })(),
  };
  const names = Object.keys(probes);
  const results = await Promise.all(names.map(n => settle(probes[n])));
  return Object.fromEntries(names.map((n, i) => [n, results[i]]));
}
"""


class Listener:
    """Real TCP and UDP sockets on one loopback address that record whatever reaches them."""

    def __init__(self, family: socket.AddressFamily, host: str) -> None:
        self.tcp = socket.socket(family, socket.SOCK_STREAM)
        self.tcp.bind((host, 0))
        self.tcp.listen(64)
        self.udp = socket.socket(family, socket.SOCK_DGRAM)
        self.udp.bind((host, 0))
        self.host = host
        self.port = self.tcp.getsockname()[1]
        self.udp_port = self.udp.getsockname()[1]
        self.connections: list[tuple[object, bytes]] = []
        self.datagrams: list[tuple[object, bytes]] = []
        for target in (self._accept, self._receive):
            threading.Thread(target=target, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, peer = self.tcp.accept()
            except OSError:
                return
            conn.settimeout(1)
            try:
                data = conn.recv(256)
            except OSError:
                data = b""
            self.connections.append((peer, data))
            conn.close()

    def _receive(self) -> None:
        while True:
            try:
                data, peer = self.udp.recvfrom(2048)
            except OSError:
                return
            self.datagrams.append((peer, data[:32]))

    @property
    def origin(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def close(self) -> None:
        self.tcp.close()
        self.udp.close()


@pytest.fixture(scope="module")
def listeners() -> Iterator[list[Listener]]:
    made = [Listener(socket.AF_INET, "127.0.0.1")]
    with contextlib.suppress(OSError):  # no IPv6 loopback here: IPv4 only
        made.append(Listener(socket.AF_INET6, "::1"))
    yield made
    for listener in made:
        listener.close()


@pytest.fixture(scope="module")
def live_session():
    import gymnasium as gym

    env = gym.make("WebTask-v0", obs_mode="tokens")
    env.reset(seed=0)
    yield env
    env.close()


def _targets(listeners: list[Listener]) -> list[tuple[str, Listener | None]]:
    loopback = [(lst.origin, lst) for lst in listeners]
    loopback.append((f"http://localhost:{listeners[0].port}", listeners[0]))
    return [*loopback, (PUBLIC_IP, None), (PUBLIC_NAME, None), *((p, None) for p in PRIVATE)]


def _all_targets() -> list[str]:
    return ["loopback-v4", "loopback-v6", "localhost", PUBLIC_IP, PUBLIC_NAME, *PRIVATE]


@pytest.mark.parametrize("which", _all_targets())
def test_no_request_leaves_the_page(live_session, listeners, which):
    by_name = dict(zip(_all_targets(), _targets(listeners), strict=False))
    if which not in by_name:
        pytest.skip("no IPv6 loopback on this machine")
    target, listener = by_name[which]
    udp = (listener or listeners[0]).udp_port
    session = live_session.unwrapped.session
    blocked_before = len(session.blocked)
    result = session.evaluate(PROBE, {"target": target, "udp": udp})

    for name in ("fetch", "fetch_post", "xhr", "worker"):
        assert result[name] == "blocked", (name, result[name])
    for name in ("img", "script", "stylesheet", "video", "eventsource"):
        assert result[name] == "error", (name, result[name])
    assert result["websocket"] != "open"
    assert result["webtransport"] != "open"
    assert "srflx" not in result["webrtc"] and "relay" not in result["webrtc"]
    assert "secret" not in result["form"]  # the frame shows an error, not a response

    # Nothing reached any listener: not a connection, not a datagram.
    for lst in listeners:
        assert lst.connections == [], (which, lst.connections)
        assert lst.datagrams == [], (which, lst.datagrams)

    # The route handler saw and aborted the HTTP(S) attempts (WebSockets and WebRTC never
    # reach it: they die at the context's proxy and the WebRTC policy instead).
    blocked = session.blocked[blocked_before:]
    for path in ("/probe", "/probe/img", "/probe/script", "/probe/frame", "/probe/form"):
        assert f"{target}{path}" in blocked, (path, blocked)
    assert all(not url.startswith("https://site.webfactory.test") for url in blocked)


def test_the_env_still_works_after_the_probes(live_session, listeners):
    env = live_session
    page = env.unwrapped.session.page
    for popup in page.context.pages:
        if popup is not page:
            popup.close()
    obs, info = env.reset(seed=1)
    assert env.observation_space.contains(obs)
    obs, *_ = env.step(env.action_space.sample())
    assert env.observation_space.contains(obs)
    for lst in listeners:
        assert lst.connections == [] and lst.datagrams == []


# ------------------------------------------------------------------ servers for people
def test_serve_binds_loopback_unless_told_otherwise(monkeypatch):
    args = cli.build_parser().parse_args(["serve", "--seed", "0"])
    assert args.host == "127.0.0.1"
    assert parse_bind(None) == ("127.0.0.1", 8091)  # `webfactory executor serve`

    from webfactory_env.sitegen import serve

    made = []
    make_server = serve.make_server

    def spy(app, host, port):
        server = make_server(app, host, port)
        made.append(server)
        threading.Timer(0.5, server.shutdown).start()  # let cmd_serve return
        return server

    monkeypatch.setattr(serve, "make_server", spy)
    args = cli.build_parser().parse_args(["serve", "--seed", "0", "--port", "0"])
    assert isinstance(args, argparse.Namespace)
    assert args.func(args) == 0  # `webfactory serve`
    (server,) = made
    assert server.server_address[0] == "127.0.0.1"

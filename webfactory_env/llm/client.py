"""A client for OpenAI-compatible chat-completions endpoints, on the standard library only.

vLLM, llama.cpp's server, Ollama and hosted APIs all speak `POST {base}/chat/completions`.
A reply is hostile input: it is size-capped and validated (pydantic) before anything reads
it. Each request has a real wall-clock deadline (`timeout_s`, over connecting, sending and
every byte of the reply); timeouts, connection failures and HTTP 408/409/425/429/5xx are
retried with exponential backoff (honouring `Retry-After`) on a *logical* budget: the waits
are planned and added up (`RetryPolicy.budget_s`), never measured, so a run's retry story
is the same on a fast and a slow machine. 401/403/404 are the user's mistake (a key, a
model, a base URL) and raise `ModelEndpointError` at once. The API key is sent only in the
Authorization header and is scrubbed from every message this module makes.
"""

from __future__ import annotations

import http.client
import json
import re
import ssl
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from webfactory_env.__about__ import __version__
from webfactory_env.core.errors import ConfigError

MAX_REPLY_BYTES = 4 * 1024 * 1024
RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
# Statuses that mean the settings are wrong: retrying or going on to the next episode
# cannot help, so the run stops with a message that says what to fix.
FATAL_STATUSES = {
    401: "the endpoint refused the API key (set OPENAI_API_KEY or --api-key)",
    403: "the endpoint refused the API key (set OPENAI_API_KEY or --api-key)",
    404: "no such model or path (check the model name and that the base URL ends in /v1)",
}
_KEYLIKE = re.compile(r"\b(sk|key|tok)-[A-Za-z0-9_\-*.]{6,}")


class ModelEndpointError(ConfigError):
    """The model endpoint says the settings are wrong (key, model, base URL)."""


@dataclass(frozen=True)
class Failure:
    """One failed attempt: `kind` is timeout, http, transport or reply (not a completion)."""

    kind: str
    message: str
    status: int | None = None


class ChatError(Exception):
    """A chat call failed for good (retries spent, or a request the endpoint will never
    take); `failures` lists every attempt's failure, the last one last; `waited_s` is the
    backoff planned between them and `latency_s` the wall clock the whole call took."""

    def __init__(
        self,
        kind: str,
        message: str,
        status: int | None = None,
        failures: Sequence[Failure] = (),
        *,
        waited_s: float = 0.0,
        latency_s: float = 0.0,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.status = status
        self.failures = tuple(failures) or (Failure(kind, message, status),)
        self.waited_s = waited_s
        self.latency_s = latency_s


@dataclass(frozen=True)
class RetryPolicy:
    """Bounded retries: at most `max_attempts` requests per call, waiting `base_s`, then
    twice as long each time (or what `Retry-After` asks, capped at `max_wait_s`), and never
    more than `budget_s` of planned waiting in one call."""

    max_attempts: int = 4
    base_s: float = 1.0
    max_wait_s: float = 30.0
    budget_s: float = 60.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ConfigError(f"--max-attempts must be at least 1, got {self.max_attempts}")
        if min(self.base_s, self.max_wait_s, self.budget_s) < 0:
            raise ConfigError("retry waits and budget cannot be negative")

    def wait(self, attempt: int, retry_after: float | None) -> float:
        """The wait before attempt `attempt + 1` (attempts count from 1)."""
        planned = self.base_s * 2 ** (attempt - 1)
        if retry_after is not None:
            planned = max(planned, retry_after)
        return min(planned, self.max_wait_s)


@dataclass(frozen=True)
class ChatConfig:
    """Where the model is and how to call it."""

    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    temperature: float = 0.0
    max_tokens: int = 512
    timeout_s: float = 120.0
    retry: RetryPolicy = RetryPolicy()
    seed: bool = True  # send the episode's seed (servers that support it sample repeatably)

    @property
    def display_url(self) -> str:
        """The base URL without credentials, query or fragment (safe to write down)."""
        return public_url(self.base_url)


@dataclass(frozen=True)
class ToolCall:
    """A function the model called: its name and its arguments (a JSON text, unchecked)."""

    name: str
    arguments: str


@dataclass(frozen=True)
class ChatReply:
    """One model reply and what getting it cost."""

    text: str
    finish_reason: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    latency_s: float  # wall clock, all attempts and waits included
    attempts: int
    waited_s: float  # planned backoff (logical)
    failures: tuple[Failure, ...] = ()  # what went wrong on the attempts before the last
    tool_calls: tuple[ToolCall, ...] = ()  # functions called (requests that offered tools)


# ------------------------------------------------------------------ the reply, validated
class _Part(BaseModel):
    model_config = ConfigDict(extra="ignore")
    type: str = "text"
    text: str = ""


class _Function(BaseModel):
    model_config = ConfigDict(extra="ignore")
    name: str = Field(max_length=200)
    arguments: str = ""


class _ToolCall(BaseModel):
    model_config = ConfigDict(extra="ignore")
    type: str = "function"
    function: _Function


class _Message(BaseModel):
    model_config = ConfigDict(extra="ignore")
    content: str | list[_Part] | None = None
    tool_calls: list[_ToolCall] | None = None


class _Choice(BaseModel):
    model_config = ConfigDict(extra="ignore")
    message: _Message
    finish_reason: str | None = None


class _Usage(BaseModel):
    model_config = ConfigDict(extra="ignore")
    prompt_tokens: int = Field(ge=0)
    completion_tokens: int = Field(ge=0)


class _Completion(BaseModel):
    model_config = ConfigDict(extra="ignore")
    choices: list[_Choice] = Field(min_length=1)
    usage: _Usage | None = None


def parse_completion(
    body: bytes,
) -> tuple[str, str | None, int | None, int | None, tuple[ToolCall, ...]]:
    """(text, finish_reason, prompt tokens, completion tokens, tool calls) of a
    chat-completions body; `ChatError("reply")` for anything that is not one."""
    try:
        data = _Completion.model_validate_json(body)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise ChatError("reply", f"not a chat completion ({where}: {err['msg']})") from None
    choice = data.choices[0]
    content = choice.message.content
    if isinstance(content, list):
        content = "".join(p.text for p in content if p.type == "text")
    usage = data.usage
    calls = tuple(
        ToolCall(c.function.name, c.function.arguments)
        for c in choice.message.tool_calls or ()
        if c.type == "function"
    )
    return (
        content or "",
        choice.finish_reason,
        usage.prompt_tokens if usage else None,
        usage.completion_tokens if usage else None,
        calls,
    )


# ------------------------------------------------------------------ the client
class ChatClient:
    """Calls one model. `sleep` waits between attempts (tests pass one that does not)."""

    def __init__(self, config: ChatConfig, *, sleep: Callable[[float], None] = time.sleep):
        check_base_url(config.base_url)
        self.config = config
        self.sleep = sleep
        self._url = urllib.parse.urlsplit(config.base_url.rstrip("/") + "/chat/completions")

    def chat(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        seed: int | None = None,
        tools: Sequence[Mapping[str, Any]] = (),
    ) -> ChatReply:
        """The model's reply to `messages` (a message's content is text, or a list of
        parts such as images), offering the functions `tools`; after retries, `ChatError`
        when none came."""
        cfg = self.config
        body: dict[str, Any] = {
            "model": cfg.model,
            "messages": [dict(m) for m in messages],
            "temperature": cfg.temperature,
            "max_tokens": cfg.max_tokens,
            "stream": False,
        }
        if seed is not None and cfg.seed:
            body["seed"] = seed
        if tools:
            body["tools"] = [dict(t) for t in tools]
        payload = json.dumps(body).encode()
        start = time.monotonic()
        waited = 0.0
        failures: list[Failure] = []
        budget_spent = False
        for attempt in range(1, cfg.retry.max_attempts + 1):
            try:
                status, headers, raw = self._post(payload)
            except TimeoutError:
                problem: ChatError = ChatError(
                    "timeout", f"no reply within {cfg.timeout_s:g} s", None
                )
                retry_after = None
            except ChatError as exc:  # a reply too large to read
                problem, retry_after = exc, None
            except (OSError, http.client.HTTPException) as exc:
                problem = ChatError("transport", self.scrub(f"{type(exc).__name__}: {exc}"))
                retry_after = None
            else:
                if status == 200:
                    try:
                        text, finish, p_tok, c_tok, calls = parse_completion(raw)
                    except ChatError as exc:
                        problem, retry_after = exc, None
                    else:
                        return ChatReply(
                            text=text,
                            finish_reason=finish,
                            prompt_tokens=p_tok,
                            completion_tokens=c_tok,
                            latency_s=time.monotonic() - start,
                            attempts=attempt,
                            waited_s=waited,
                            failures=tuple(failures),
                            tool_calls=calls,
                        )
                else:
                    message = f"HTTP {status}: {self.scrub(_error_text(raw))}"
                    if status in FATAL_STATUSES:
                        raise ModelEndpointError(
                            f"model endpoint {cfg.display_url}: {message}; {FATAL_STATUSES[status]}"
                        )
                    problem = ChatError("http", message, status)
                    if status not in RETRY_STATUSES:
                        # A request the endpoint will never take (e.g. a prompt too long).
                        failures.append(Failure("http", message, status))
                        raise ChatError(
                            "http",
                            message,
                            status,
                            failures,
                            waited_s=waited,
                            latency_s=time.monotonic() - start,
                        )
                    retry_after = _retry_after(headers.get("retry-after"))
            failures.append(Failure(problem.kind, str(problem), problem.status))
            if attempt == cfg.retry.max_attempts:
                break
            wait = cfg.retry.wait(attempt, retry_after)
            if waited + wait > cfg.retry.budget_s:
                budget_spent = True
                break
            waited += wait
            self.sleep(wait)
        shown = "; ".join(f.message for f in failures[-3:])
        spent = f", retry budget of {cfg.retry.budget_s:g} s spent" if budget_spent else ""
        raise ChatError(
            problem.kind,
            f"no usable reply after {attempt} attempts{spent} ({shown})",
            problem.status,
            failures,
            waited_s=waited,
            latency_s=time.monotonic() - start,
        )

    def scrub(self, text: str) -> str:
        """`text` without the API key, or anything shaped like one."""
        key = self.config.api_key
        if key:
            text = text.replace(key, "***")
        return _KEYLIKE.sub(lambda m: m.group(1) + "-***", text)

    # -------------------------------------------------------------- one request
    def _post(self, payload: bytes) -> tuple[int, dict[str, str], bytes]:
        """One POST under a wall-clock deadline; (status, headers, body)."""
        cfg, url = self.config, self._url
        deadline = time.monotonic() + cfg.timeout_s
        conn, target = _connection(url, cfg.timeout_s)
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": f"webfactory/{__version__}",
            "Connection": "close",
        }
        if cfg.api_key:
            headers["Authorization"] = f"Bearer {cfg.api_key}"
        try:
            conn.connect()
            sock = conn.sock
            assert sock is not None
            sock.settimeout(_left(deadline))
            conn.request("POST", target, body=payload, headers=headers)
            sock.settimeout(_left(deadline))
            resp = conn.getresponse()
            chunks: list[bytes] = []
            size = 0
            while True:
                sock.settimeout(_left(deadline))  # the deadline covers every byte
                chunk = resp.read1(65536)
                if not chunk:
                    break
                size += len(chunk)
                if size > MAX_REPLY_BYTES:
                    raise ChatError("reply", f"reply larger than {MAX_REPLY_BYTES} bytes")
                chunks.append(chunk)
            return resp.status, {k.lower(): v for k, v in resp.getheaders()}, b"".join(chunks)
        finally:
            conn.close()


def _left(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError
    return left


def _connection(
    url: urllib.parse.SplitResult, timeout: float
) -> tuple[http.client.HTTPConnection, str]:
    """A connection for `url`, through the proxy the environment names (as urllib would)."""
    host, port = url.hostname or "", url.port
    target = urllib.parse.urlunsplit(("", "", url.path or "/", url.query, ""))
    proxy = urllib.request.getproxies().get(url.scheme)
    if proxy and not urllib.request.proxy_bypass(host):
        p = urllib.parse.urlsplit(proxy if "://" in proxy else f"http://{proxy}")
        if url.scheme == "https":
            conn: http.client.HTTPConnection = http.client.HTTPSConnection(
                p.hostname or "",
                p.port or 3128,
                timeout=timeout,
                context=ssl.create_default_context(),
            )
            conn.set_tunnel(host, port or 443)
            return conn, target
        conn = http.client.HTTPConnection(p.hostname or "", p.port or 3128, timeout=timeout)
        return conn, urllib.parse.urlunsplit(url._replace(netloc=url.netloc.rpartition("@")[2]))
    if url.scheme == "https":
        return http.client.HTTPSConnection(
            host, port, timeout=timeout, context=ssl.create_default_context()
        ), target
    return http.client.HTTPConnection(host, port, timeout=timeout), target


def _error_text(raw: bytes) -> str:
    """The error message of an error reply, short (OpenAI's {"error": {"message": ...}})."""
    text = raw[:2000].decode("utf-8", "replace")
    try:
        data = json.loads(text)
        err = data.get("error") if isinstance(data, dict) else None
        message = err.get("message") if isinstance(err, dict) else err
        if message:
            text = str(message)
    except ValueError:
        pass
    return " ".join(text.split())[:200] or "(no message)"


def _retry_after(value: str | None) -> float | None:
    try:
        return max(float(value), 0.0) if value is not None else None
    except ValueError:
        return None  # an HTTP date: fall back to our own backoff


def public_url(url: str) -> str:
    """`url` without user, password, query or fragment."""
    parts = urllib.parse.urlsplit(url)
    netloc = parts.netloc.rpartition("@")[2]
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def check_base_url(url: str) -> None:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(
            f"the model base URL must be http(s)://HOST[:PORT]/v1, got {public_url(url)!r};"
            " set OPENAI_BASE_URL or --base-url (e.g. http://127.0.0.1:8000/v1 for vLLM)"
        )

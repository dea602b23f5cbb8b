// webfactory runtime: mounts server-rendered fragments, hides their instrumentation,
// forwards user events to the Python app, patches the page in place, and extracts the
// observation (observe.js, which `runtime_script()` puts inside this closure). The Python
// app is the authority on state; this file only moves events and HTML. Two transports:
// "queue" (the env drains events with one evaluate per step) and "fetch" (a person
// browsing `webfactory serve`; events are POSTed to /__wf/event).
(() => {
  "use strict";
  // Leave no trace in the document: the agent's page holds only the site.
  if (document.currentScript) document.currentScript.remove();
  if (window.__wf) return;

  const META = new WeakMap();        // element -> {sid, h, a}; never written into the DOM
  let sentinels = [];                // elements that fire their handler when scrolled into view
  let dragTargets = [];              // draggable items and drop zones (for the side table)
  const regions = new Map();         // region name -> container element
  let transport = "queue";
  let queue = [];
  let stack = [];                    // this episode's route history (env back() uses it)
  let elements = [];                 // elements of the last observation, by index
  // In the env the route and title live here, not in location/document.title: every
  // history.replaceState or title change is a round trip to the browser process that
  // cost more than a whole step (measured ~17 ms and ~3 ms on 2 cores). The agent sees
  // both through the observation; a person using `webfactory serve` gets real history.
  let route = "/";
  let title = "";
  let inflight = Promise.resolve();
  let observedScroll = [0, 0];       // the page's scroll offsets when last observed

  const INTERACTIVE = new Set(["A", "BUTTON", "INPUT", "SELECT", "TEXTAREA", "SUMMARY"]);
  const TEXT_INPUTS = new Set(["", "text", "email", "search", "tel", "url", "password", "number"]);

  // ---------------------------------------------------------------- mounting
  function ingest(html) {
    const tpl = document.createElement("template");
    tpl.innerHTML = html;
    const found = [];
    for (const el of tpl.content.querySelectorAll("*")) {
      let meta = null, region = null;
      for (const attr of Array.from(el.attributes)) {
        if (!attr.name.startsWith("data-wf")) continue;
        const key = attr.name.slice(8);
        if (key === "region") region = attr.value;
        else { meta = meta || {}; meta[key] = attr.value; }
        el.removeAttribute(attr.name);
      }
      if (meta) {
        META.set(el, meta);
        if (meta.on === "visible") sentinels.push(el);
        if (meta.drag !== undefined || meta.drop !== undefined) dragTargets.push(el);
      }
      if (region) found.push([region, el]);
    }
    return [tpl.content, found];
  }

  function fillRegion(name, html) {
    const target = regions.get(name);
    if (!target) return null;
    const [frag, nested] = ingest(html);
    for (const [n, el] of nested) regions.set(n, el);
    target.replaceChildren(frag);
    return target;
  }

  // Fill several regions. A region re-sent with its parent must be filled after it (the
  // parent's HTML holds an empty placeholder for it); the app sends parents first, but
  // merged patches may not, so any region whose placeholder a later fill replaced (or
  // created) is filled again, until nothing moves.
  function fillRegions(entries) {
    let todo = entries;
    for (let pass = 0; todo.length && pass < 8; pass++) {
      const filled = new Map();
      for (const [name, html] of todo) filled.set(name, fillRegion(name, html));
      todo = todo.filter(([name]) => (regions.get(name) || null) !== filled.get(name));
    }
  }

  function setTitle(text) {
    title = text || "";
    if (transport === "fetch") document.title = title;
  }

  function mount(payload) {
    transport = payload.transport || "queue";
    setTitle(payload.title);
    let style = document.getElementById("wf-theme");
    if (!style) {
      style = document.createElement("style");
      style.id = "wf-theme";
      document.head.appendChild(style);
    }
    // Same family and theme as the last site: keep the parsed stylesheet.
    if (style.textContent !== (payload.css || "")) style.textContent = payload.css || "";
    const root = document.getElementById("wf-root") || document.body;
    regions.clear();
    const [frag, found] = ingest(payload.frame);
    for (const [n, el] of found) regions.set(n, el);
    root.replaceChildren(frag);
    fillRegions(Object.entries(payload.regions || {}));
    queue = [];
    elements = [];
    stack = [payload.route];
    route = payload.route;
    if (transport === "fetch" && location.pathname + location.search !== payload.route) {
      history.replaceState(null, "", payload.route);
    }
    if (document.activeElement && document.activeElement !== document.body) {
      document.activeElement.blur();
    }
    window.scrollTo(0, 0);
  }

  function applyPatch(p) {
    if (!p) return;
    if (p.title !== undefined && p.title !== null) setTitle(p.title);
    fillRegions(Object.entries(p.regions || {}));
    if (p.route) {
      route = p.route;
      if (p.history === "push") {
        stack.push(p.route);
        if (transport === "fetch") history.pushState(null, "", p.route);
      } else if (p.history === "replace" || p.history === "back") {
        stack[stack.length - 1] = p.route;
        if (transport === "fetch" && p.history === "replace") history.replaceState(null, "", p.route);
      }
    }
    if (p.scroll === "top" && window.scrollY !== 0) window.scrollTo(0, 0);
  }

  // ------------------------------------------------------------------ events
  function metaOf(el) {
    for (let node = el; node && node !== document; node = node.parentElement) {
      const m = META.get(node);
      if (m) return [node, m];
    }
    return [null, null];
  }

  function emit(ev) {
    if (transport === "fetch") {
      inflight = inflight.then(() => fetch("/__wf/event", {
        method: "POST", headers: {"content-type": "application/json"}, body: JSON.stringify(ev),
      }).then(r => r.json()).then(applyPatch)).catch(err => console.error("webfactory:", err));
    } else {
      queue.push(ev);
    }
  }

  document.addEventListener("click", (e) => {
    const [el, m] = metaOf(e.target);
    if (el && m.h && m.ev === "change") {
      // a custom option (menu item, calendar day, suggestion) reports a choice
      e.preventDefault();
      if (!el.disabled) emit({type: "change", handler: m.h, arg: m.a ?? null, sid: m.sid ?? null, value: m.v ?? ""});
      return;
    }
    if (el && m.h && !isFormControl(el) && !(el.tagName === "BUTTON" && el.type === "submit")) {
      e.preventDefault();
      if (!el.disabled) emit({type: "click", handler: m.h, arg: m.a ?? null, sid: m.sid ?? null});
      return;
    }
    const link = e.target.closest ? e.target.closest("a[href]") : null;
    if (!link) return;
    e.preventDefault();  // same-origin links become in-place navigations; others go nowhere
    const url = new URL(link.href, location.href);
    if (url.origin !== location.origin) return;
    const lm = META.get(link);
    emit({type: "nav", path: url.pathname + url.search, sid: lm && lm.sid ? lm.sid : null});
  });

  // Radios, checkboxes, selects and text fields report through change/input, not click.
  function isFormControl(el) {
    return el.tagName === "INPUT" || el.tagName === "SELECT" || el.tagName === "TEXTAREA"
      || el.isContentEditable;
  }

  function fieldEvent(type) {
    return (e) => {
      const [el, m] = metaOf(e.target);
      if (!el || !m.h || el !== e.target) return;
      const value = el.type === "checkbox" ? (el.checked ? "true" : "false")
        : el.isContentEditable ? el.innerText : el.value;
      emit({type, handler: m.h, arg: m.a ?? null, sid: m.sid ?? null, value});
    };
  }
  // Text fields report every edit through "input"; choices (select, checkbox, radio)
  // report once, through "change".
  const isText = (el) => el.tagName === "TEXTAREA" || el.isContentEditable
    || (el.tagName === "INPUT" && TEXT_INPUTS.has(el.type));
  const onInput = fieldEvent("input"), onChange = fieldEvent("change");
  document.addEventListener("input", (e) => { if (isText(e.target)) onInput(e); });
  document.addEventListener("change", (e) => { if (!isText(e.target)) onChange(e); });

  document.addEventListener("submit", (e) => {
    e.preventDefault();
    const form = e.target;
    const [, m] = metaOf(form);
    if (!m || !m.h) return;
    const values = {};
    for (const [k, v] of new FormData(form).entries()) values[k] = String(v);
    const sub = e.submitter ? META.get(e.submitter) : null;
    emit({type: "submit", handler: m.h, arg: m.a ?? null,
          sid: (sub && sub.sid) || m.sid || null, values});
  });

  window.addEventListener("popstate", () => {
    if (transport !== "fetch") return;
    if (stack.length > 1) stack.pop();
    emit({type: "nav", path: location.pathname + location.search, back: true, sid: null});
  });

  /* drag.js */

  /* observe.js */

  // ----------------------------------------------------------------- actions
  // Deterministic "infinite scroll": after a scroll, any sentinel now in view fires once.
  function checkSentinels() {
    sentinels = sentinels.filter((el) => el.isConnected);
    for (const el of sentinels) {
      const r = el.getBoundingClientRect();
      if (r.height > 0 && r.top < window.innerHeight && r.bottom > 0) {
        const m = META.get(el);
        emit({type: "click", handler: m.h, arg: m.a ?? null, sid: m.sid ?? null});
      }
    }
  }
  window.addEventListener("scroll", () => { if (transport === "fetch") checkSentinels(); });

  function drain() {
    const events = queue;
    queue = [];
    return events;
  }

  // After input from the executor's mouse or keyboard (coordinate actions): the page's
  // events, and, when the input scrolled the page (a wheel, a key, a drag), what "load
  // more" sentinels it brought into view set off, as a scroll action's do.
  function settle() {
    if (window.scrollX !== observedScroll[0] || window.scrollY !== observedScroll[1]) {
      checkSentinels();
    }
    return drain();
  }

  // What a replaced element was called, to find its successor (selector drift).
  function describe(el) {
    return {
      tag: el.tagName.toLowerCase(), id: el.id || "", name: el.getAttribute("name") || "",
      testid: el.getAttribute("data-testid") || "", aria: el.getAttribute("aria-label") || "",
      placeholder: el.getAttribute("placeholder") || "", type: el.getAttribute("type") || "",
      text: squash(el.textContent || "", 80), label: "",
    };
  }

  // Whether `el` can take the non-pointer action `verb` (the observation's flags say the
  // same for observed elements; a drifted element's successor is checked here).
  function takes(el, verb) {
    if (verb === "type") return isText(el) && !el.readOnly && !el.disabled;
    if (verb === "select") return el.tagName === "SELECT" && !el.disabled;
    if (verb === "submit") return Boolean(el.form || el.closest("form"));
    return true;
  }

  // Point observation row `index` at the element `selector` finds now, if it can take
  // `verb`; its centre, or null.
  function retarget(index, selector, verb) {
    let found = null;
    const m = /^([a-z0-9]+):text-is\((".*")\)$/.exec(selector);
    if (m) {
      const want = JSON.parse(m[2]);
      found = Array.from(document.getElementsByTagName(m[1])).find(
        (e) => squash(e.innerText || "", 80) === want && e.checkVisibility()) || null;
    } else {
      try { found = document.querySelector(selector); } catch (err) { found = null; }
    }
    if (!found || !found.checkVisibility() || !takes(found, verb)) return null;
    elements[index] = found;
    const r = found.getBoundingClientRect();
    return [r.left + r.width / 2, r.top + r.height / 2];
  }

  function setNativeValue(el, value) {
    const proto = el.tagName === "TEXTAREA" ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
    Object.getOwnPropertyDescriptor(proto, "value").set.call(el, value);
  }

  const CANNOT = {type: "takes no text", select: "is not a dropdown", submit: "is not in a form"};

  // Non-pointer actions run here, as Playwright's own fill/selectOption do; clicks and
  // key presses come from real input events sent by the executor.
  function act(verb, index, value) {
    const el = index >= 0 ? elements[index] : null;
    if (index >= 0 && (!el || !el.isConnected)) {
      return {ok: false, stale: true, error: "the element was replaced since it was observed",
              descriptor: el ? describe(el) : null, events: drain()};
    }
    if (el && !takes(el, verb)) {
      return {ok: false, error: "the element (a " + el.tagName.toLowerCase() + ") " + CANNOT[verb],
              events: drain()};
    }
    switch (verb) {
      case "type":
        el.focus();
        if (el.isContentEditable) el.textContent = value;
        else setNativeValue(el, value);
        el.dispatchEvent(new InputEvent("input", {bubbles: true, inputType: "insertReplacementText"}));
        el.dispatchEvent(new Event("change", {bubbles: true}));
        break;
      case "select": {
        const want = String(value).trim().toLowerCase();
        const opt = Array.from(el.options).find(o =>
          o.text.trim().toLowerCase() === want || o.value.toLowerCase() === want);
        if (!opt) return {ok: false, error: "no such option", events: drain()};
        el.focus();
        el.value = opt.value;
        el.dispatchEvent(new Event("input", {bubbles: true}));
        el.dispatchEvent(new Event("change", {bubbles: true}));
        break;
      }
      case "submit": {
        const form = el.form || el.closest("form");
        const submitter = el.type === "submit" ? el : undefined;
        form.requestSubmit(submitter);
        break;
      }
      case "focus":
        el.focus();
        break;
      case "scroll":
        window.scrollBy(0, Math.round(window.innerHeight * 0.8) * (value === "up" ? -1 : 1));
        checkSentinels();
        break;
      case "back":
        if (stack.length < 2) return {ok: false, error: "no page to go back to", events: drain()};
        stack.pop();
        queue.push({type: "nav", path: stack[stack.length - 1], back: true, sid: null});
        break;
      default:
        return {ok: false, error: "unknown verb " + verb, events: drain()};
    }
    return {ok: true, events: drain()};
  }

  // For conformance tests: the semantic ids of live elements (with repeats) and every URL
  // the document refers to.
  function audit() {
    const sids = [], urls = [];
    for (const el of document.getElementsByTagName("*")) {
      const m = META.get(el);
      if (m && m.sid) sids.push(m.sid);
      for (const name of ["href", "src", "action", "srcset", "poster", "data", "formaction"]) {
        const v = el.getAttribute(name);
        if (v !== null) urls.push(v);
      }
      const style = el.getAttribute("style");
      if (style && style.includes("url(")) urls.push(style);
      if (el.tagName === "STYLE" && el.textContent.includes("url(")) urls.push(el.textContent);
    }
    const dataAttrs = Array.from(document.querySelectorAll("*")).filter(
      (e) => Array.from(e.attributes).some((a) => a.name.startsWith("data-wf"))).length;
    return {sids, urls, dataAttrs};
  }

  // One call per step: apply the app's patch, then observe.
  function step(payload) {
    if (payload.clock && window.__wfShim) window.__wfShim.setClock(payload.clock);
    if (payload.rerender) rerender(payload.patch);
    else applyPatch(payload.patch);
    return payload.observe ? observe(payload.observe) : null;
  }

  // A re-render of the same page (the drift axis): every element is replaced, but what
  // the user typed stays, as in any framework that keeps field state across renders. The
  // app cannot put it back itself: it never writes a secret (a card number, a password)
  // into the page, and a field without an input handler is not in its state at all.
  function rerender(patch) {
    const before = typedFields();
    applyPatch(patch);
    for (const [key, el] of typedFields()) {
      const was = before.get(key);
      if (was && was.value !== el.value) setNativeValue(el, was.value);
    }
  }

  // The page's text fields by semantic id (and occurrence, should an id repeat).
  function typedFields() {
    const out = new Map(), seen = new Map();
    for (const el of document.querySelectorAll("input, textarea")) {
      const m = META.get(el);
      if (!m || !m.sid || !isText(el)) continue;
      const n = (seen.get(m.sid) || 0) + 1;
      seen.set(m.sid, n);
      out.set(m.sid + "#" + n, el);
    }
    return out;
  }

  // The executor's entry points take and return JSON text: Playwright's structured-clone
  // of many small arrays costs more than the work itself.
  const json = (f) => (arg) => JSON.stringify(f(...JSON.parse(arg)));

  Object.defineProperty(window, "__wf", {
    value: Object.freeze({
      mount, applyPatch, drain, settle, observe, act, step,
      settled: () => inflight.then(() => true, () => true),
      j: Object.freeze({
        mount: json((p, clock, seed, opts) => {
          if (window.__wfShim) window.__wfShim.reset(clock, seed);
          mount(p);
          return observe(opts);
        }),
        drain: json(drain), settle: json(settle), observe: json(observe), act: json(act),
        step: json(step),
        audit: json(audit), retarget: json(retarget),
      }),
    }),
    enumerable: false,
  });

  function boot() {
    const el = document.getElementById("wf-boot");
    if (!el) return;
    const payload = JSON.parse(el.textContent);
    el.remove();
    mount(payload);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
  else boot();
})();

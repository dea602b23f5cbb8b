// Page inspection for the web executor, evaluated on any page (with or without the
// webfactory runtime): `(arg) => ({candidates, excerpt})[arg.op](arg)`.
(arg) => {
  const squash = (s, n) => {
    s = (s || "").replace(/\s+/g, " ").trim();
    return s.length > n ? s.slice(0, n) : s;
  };
  // Interactive elements and every attribute a selector might have named them by.
  const candidates = () => {
    const sel = "input:not([type=hidden]), textarea, select, button, a[href], [role=button], " +
      "[role=link], [role=checkbox], [role=tab], [contenteditable=true]";
    const out = [];
    for (const el of document.querySelectorAll(sel)) {
      if (el.checkVisibility && !el.checkVisibility()) continue;
      const label = el.labels && el.labels.length ? el.labels[0].textContent : "";
      out.push({
        tag: el.tagName.toLowerCase(), id: el.id || "", name: el.getAttribute("name") || "",
        testid: el.getAttribute("data-testid") || "", aria: el.getAttribute("aria-label") || "",
        placeholder: el.getAttribute("placeholder") || "", label: squash(label, 80),
        text: squash(el.innerText || "", 80), type: el.getAttribute("type") || "",
      });
    }
    return out;
  };
  // A sanitised copy of the snapshot element: no scripts, styles or handlers, the current
  // value of every field, and every secret (redacted values, passwords, card fields) shown
  // as REDACTED.
  const excerpt = ({selector, redact, max}) => {
    const root = document.querySelector(selector || "body") || document.body;
    const copy = root.cloneNode(true);
    const live = root.querySelectorAll("input, textarea");
    const dead = copy.querySelectorAll("input, textarea");
    live.forEach((el, i) => {
      const c = dead[i];
      if (!c) return;
      const secret = el.type === "password" || redact.includes(el.value) ||
        (el.getAttribute("autocomplete") || "").startsWith("cc-");
      const v = secret && el.value ? "REDACTED" : el.value;
      if (el.tagName === "TEXTAREA") c.textContent = v; else c.setAttribute("value", v);
    });
    copy.querySelectorAll("script, style, template, noscript").forEach((e) => e.remove());
    for (const e of copy.querySelectorAll("*")) {
      for (const a of Array.from(e.attributes)) {
        if (a.name.startsWith("on") || a.name === "style") e.removeAttribute(a.name);
      }
    }
    let html = copy.outerHTML.replace(/\s+/g, " ");
    for (const secret of redact) if (secret) html = html.split(secret).join("REDACTED");
    return html.length > max ? html.slice(0, max) : html;
  };
  return ({candidates, excerpt})[arg.op](arg);
}

// A step's calls into the page runtime (`window.__wf`, sites/runtime/runtime.js) for the
// env's executor (webfactory_env/executor/session.py), installed with the page shims.
// Arguments arrive as a JavaScript literal, escaped once on their way here; results go back
// as JSON text. When an action caused no event there is nothing to patch, so `act` and
// `after` end the step as `step` would end it without a patch (clock, then observation)
// and return the observation as `dom`: one call into the page fewer.
(() => {
  "use strict";
  function settle(res, then) {
    if (then && !res.stale && !res.events.length) {
      res.dom = window.__wf.step({clock: then.clock, patch: null, observe: then.observe});
    }
    return JSON.stringify(res);
  }
  // A wheel turn reaches the page's main thread a frame or more after the browser says it
  // was sent (the compositor scrolls first), so a step that turned the wheel ends when the
  // scroll it was expected to make has ended: `expectScroll` before the turn, `input` after.
  const SCROLL_WAIT_MS = 2000; // only a scroll predicted wrongly waits this long
  let scrolling = null;
  function movable(pos, max, delta, overflow) {
    if (!delta || max < 1 || !/auto|scroll|overlay|visible/.test(overflow)) return false;
    return delta > 0 ? pos < max - 0.5 : pos > 0.5;
  }
  // Whether a wheel turn of (dx, dy) at (x, y) scrolls anything: the element under the point
  // or a scroller around it that can still move that way, else the page.
  function scrollsAt(x, y, dx, dy) {
    const root = document.documentElement;
    const body = document.body;
    for (let el = document.elementFromPoint(x, y); el && el !== root && el !== body;
         el = el.parentElement) {
      const style = getComputedStyle(el);
      if (!/auto|scroll|overlay/.test(style.overflowX + style.overflowY)) continue;
      if (movable(el.scrollLeft, el.scrollWidth - el.clientWidth, dx, style.overflowX) &&
          style.overflowX !== "visible") return true;
      if (movable(el.scrollTop, el.scrollHeight - el.clientHeight, dy, style.overflowY) &&
          style.overflowY !== "visible") return true;
    }
    // The viewport scrolls as the root's overflow says, or the body's when the root's is
    // `visible` (CSS propagation); `visible` there means it scrolls.
    const rootStyle = getComputedStyle(root);
    const from = rootStyle.overflowY === "visible" && body ? getComputedStyle(body) : rootStyle;
    const page = document.scrollingElement || root;
    return movable(window.scrollX, page.scrollWidth - window.innerWidth, dx, from.overflowX) ||
        movable(window.scrollY, page.scrollHeight - window.innerHeight, dy, from.overflowY);
  }
  function expectScroll(x, y, dx, dy) {
    scrolling = null;
    if (!scrollsAt(x, y, dx, dy)) return false;
    scrolling = new Promise((resolve) => {
      const done = () => {
        window.removeEventListener("scrollend", done, true);
        clearTimeout(timer);
        resolve();
      };
      window.addEventListener("scrollend", done, true);
      const timer = setTimeout(done, SCROLL_WAIT_MS);
    });
    return true;
  }
  function afterInput(then) {
    const end = () => settle({events: window.__wf.settle()}, then);
    if (!scrolling) return end();
    const waiting = scrolling;
    scrolling = null;
    return waiting.then(end);
  }
  Object.defineProperty(window, "__wfStep", {
    value: Object.freeze({
      step: (payload) => JSON.stringify(window.__wf.step(payload)),
      act: (verb, index, value, then) => settle(window.__wf.act(verb, index, value), then),
      after: (then) => settle({events: window.__wf.drain()}, then),
      // after mouse or keyboard input (coordinate actions): also what it scrolled into view
      // set off (see the runtime's `settle`)
      input: afterInput,
      expectScroll,
    }),
    enumerable: false,
  });
})();

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
  Object.defineProperty(window, "__wfStep", {
    value: Object.freeze({
      step: (payload) => JSON.stringify(window.__wf.step(payload)),
      act: (verb, index, value, then) => settle(window.__wf.act(verb, index, value), then),
      after: (then) => settle({events: window.__wf.drain()}, then),
      // after mouse or keyboard input (coordinate actions): also what it scrolled into view
      // set off (see the runtime's `settle`)
      input: (then) => settle({events: window.__wf.settle()}, then),
    }),
    enumerable: false,
  });
})();

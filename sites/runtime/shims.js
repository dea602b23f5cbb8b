// Determinism shims, installed before any page script: a logical clock for Date and
// performance.now, and one seeded generator behind Math.random and crypto. The env sets
// both per episode and per step through window.__wfShim; nothing reads the wall clock.
(() => {
  "use strict";
  let now = 1767607200000;   // 2026-01-05T10:00:00Z until the env says otherwise
  let origin = now;
  let state = 1;

  function next() {           // mulberry32
    state = (state + 0x6D2B79F5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  const RealDate = Date;
  function FakeDate(...args) {
    if (!new.target) return new RealDate(now).toString();
    return args.length ? new RealDate(...args) : new RealDate(now);
  }
  FakeDate.prototype = RealDate.prototype;
  FakeDate.now = () => now;
  FakeDate.parse = RealDate.parse;
  FakeDate.UTC = RealDate.UTC;
  window.Date = FakeDate;

  Math.random = next;
  performance.now = () => now - origin;
  if (window.crypto) {
    crypto.getRandomValues = (arr) => {
      const bytes = new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength);
      for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(next() * 256);
      return arr;
    };
    crypto.randomUUID = () => {
      const b = crypto.getRandomValues(new Uint8Array(16));
      b[6] = (b[6] & 0x0f) | 0x40;
      b[8] = (b[8] & 0x3f) | 0x80;
      const h = Array.from(b, x => x.toString(16).padStart(2, "0")).join("");
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    };
  }

  Object.defineProperty(window, "__wfShim", {
    value: Object.freeze({
      reset(epochMs, seed) { now = origin = epochMs; state = seed | 0; },
      setClock(epochMs) { now = epochMs; },
    }),
    enumerable: false,
  });
})();

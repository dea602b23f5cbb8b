  // ------------------------------------------------------------ drag and drop
  // Inside runtime.js's closure (where it says `/* drag.js */`): reads META and `emit`.
  // A drag is the mouse's own: pressed on a draggable item (`sitegen.widgets.dragging`),
  // moved past a few pixels, released over a drop zone. The drop reports a submit to the
  // item's handler, naming the item's semantic id, with the zone's value and where in the
  // zone it landed: "top", "before:<key>" (the first item below the pointer) or "last";
  // the keyboard alternative's form sends the same. Plain mouse events, not HTML5 drag
  // and drop: any mouse that presses, moves and releases delivers them (a person's, the
  // executor's), with no browser drag session to start or lose; the press is cancelled
  // so that the card's link starts no native drag of its own.
  const DRAG_SLOP = 4;               // pixels the pointer moves before a press is a drag
  let dragging = null;               // {el, m, x, y, moved}
  let swallowClick = false;          // the click that ends a drag is not a click

  function metaWith(el, key) {
    for (let node = el; node && node !== document; node = node.parentElement) {
      const m = META.get(node);
      if (m && m[key] !== undefined) return [node, m];
    }
    return [null, null];
  }

  // Where in `zone` a drop at height `y` lands: above the first other item whose middle
  // is below the pointer, else after them all.
  function placeIn(zone, item, y) {
    const others = Array.from(zone.querySelectorAll("*")).filter((el) => {
      const m = META.get(el);
      return el !== item && m && m.drag !== undefined;
    });
    const below = others.find((el) => {
      const r = el.getBoundingClientRect();
      return y < r.top + r.height / 2;
    });
    if (!below) return "last";
    return below === others[0] ? "top" : "before:" + META.get(below).dk;
  }

  document.addEventListener("mousedown", (e) => {
    swallowClick = false;
    if (e.button !== 0 || isFormControl(e.target)) return;
    const [el, m] = metaWith(e.target, "drag");
    if (!el) return;
    e.preventDefault();  // no text selection, no native drag of the link inside
    dragging = {el, m, x: e.clientX, y: e.clientY, moved: false};
  }, true);

  document.addEventListener("mousemove", (e) => {
    if (!dragging || dragging.moved) return;
    if (Math.abs(e.clientX - dragging.x) + Math.abs(e.clientY - dragging.y) < DRAG_SLOP) return;
    dragging.moved = true;
  }, true);

  document.addEventListener("mouseup", (e) => {
    const d = dragging;
    dragging = null;
    if (!d || !d.moved) return;
    swallowClick = true;
    const hit = document.elementFromPoint(e.clientX, e.clientY);
    const [zone, zm] = metaWith(hit, "drop");
    if (!zone || !d.el.isConnected) return;
    emit({type: "submit", handler: d.m.drag, arg: d.m.da ?? null, sid: d.m.ds ?? null,
          values: {[zm.dn]: zm.drop, place: placeIn(zone, d.el, e.clientY)}});
  }, true);

  document.addEventListener("click", (e) => {
    if (!swallowClick) return;
    swallowClick = false;
    e.preventDefault();
    e.stopImmediatePropagation();
  }, true);

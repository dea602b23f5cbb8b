  // ------------------------------------------------------------- observation
  // This file is part of runtime.js: `runtime_script()` puts it inside the runtime's
  // closure (where runtime.js says `/* observe.js */`), so it reads META, `elements`,
  // `route`, `title`, `stack` and `queue` from there, and defines nothing global.
  //
  // What an accessibility tree gives a screen-reader user, per visible element: its role,
  // its name (whole, up to maxText characters, cut with "…"), its value, its states (as
  // flag bits), its containers (landmarks, forms, lists and their items, tables and their
  // rows) and, inside a table, the name of its column; outside one, what labels its value.
  function roleOf(el) {
    const explicit = el.getAttribute("role");
    if (explicit) return explicit;
    switch (el.tagName) {
      case "A": return "link";
      case "BUTTON": case "SUMMARY": return "button";
      case "SELECT": return "combobox";
      case "DIV": if (el.isContentEditable) return "textbox"; return "text";
      case "TEXTAREA": return "textbox";
      case "INPUT":
        if (el.type === "checkbox") return "checkbox";
        if (el.type === "radio") return "radio";
        if (el.type === "submit" || el.type === "button") return "button";
        return "textbox";
      case "H1": case "H2": case "H3": case "H4": case "H5": case "H6": return "heading";
      case "LI": return "listitem";
      case "TD": return "cell";
      case "TH": return "columnheader";
      case "LABEL": return "label";
      case "IMG": return "img";
      default: return "text";
    }
  }

  // Whitespace folded; a text longer than `n` is cut, and the cut is marked with "…".
  function squash(s, n) {
    s = (s || "").replace(/\s+/g, " ").trim();
    return s.length > n ? s.slice(0, Math.max(n - 1, 0)) + "\u2026" : s;
  }

  function ownText(el) {
    let s = "";
    for (let n = el.firstChild; n; n = n.nextSibling) if (n.nodeType === 3) s += n.nodeValue;
    return s;
  }

  function nameOf(el) {
    const aria = el.getAttribute("aria-label");
    if (aria) return aria;
    const by = el.getAttribute("aria-labelledby");
    if (by) {
      const ref = document.getElementById(by);
      if (ref) return ref.textContent;
    }
    if (el.labels && el.labels.length) return el.labels[0].textContent;
    if (el.tagName === "INPUT" || el.tagName === "TEXTAREA") return el.placeholder || el.name || "";
    return el.textContent || el.value || "";
  }

  function valueOf(el) {
    if (el.tagName === "SELECT") return el.selectedIndex >= 0 ? el.options[el.selectedIndex].text : "";
    if (el.tagName === "TEXTAREA") return el.value;
    if (el.isContentEditable) return el.innerText;
    if (el.tagName === "INPUT") {
      if (el.type === "password") return el.value ? "\u2022".repeat(el.value.length) : "";
      if (el.type === "checkbox" || el.type === "radio") return "";
      return el.value;
    }
    return "";
  }

  function isInteractive(el) {
    const tag = el.tagName;
    if (el.isContentEditable && el.getAttribute("contenteditable") !== null) return true;
    if (!INTERACTIVE.has(tag)) return false;
    if (tag === "INPUT") return el.type !== "hidden";
    if (tag === "A") return el.hasAttribute("href");
    return true;
  }

  // A label that names a control is heard as the control's name, not as text of its own.
  function namesAControl(el) {
    return el.tagName === "LABEL" && el.control != null && isInteractive(el.control);
  }

  // Text worth a line of its own: a letter, a digit or a symbol (★, $, ✓), not separators.
  const SAYS = /[\p{L}\p{N}\p{S}]/u;
  const SKIP = new Set(["SCRIPT", "STYLE", "TEMPLATE", "NOSCRIPT", "OPTION", "OPTGROUP", "svg"]);
  // Containers a person perceives as structure: landmarks, forms, dialogs, lists and their
  // items, tables and their rows, cards. The text observation nests elements under them.
  const CONTAINER_TAGS = {HEADER: "banner", NAV: "navigation", MAIN: "main", ASIDE: "complementary",
    FOOTER: "contentinfo", FORM: "form", DIALOG: "dialog", SECTION: "region", TABLE: "table",
    UL: "list", OL: "list", FIELDSET: "group", MENU: "list", LI: "listitem", TR: "row",
    ARTICLE: "article"};
  const CONTAINER_ROLES = new Set(["banner", "navigation", "main", "complementary", "contentinfo",
    "form", "dialog", "alertdialog", "region", "table", "grid", "list", "listbox", "menu",
    "menubar", "tablist", "tabpanel", "group", "radiogroup", "search", "toolbar", "listitem",
    "row", "article"]);

  function containerRole(el) {
    const explicit = el.getAttribute("role");
    if (explicit) return CONTAINER_ROLES.has(explicit) ? explicit : null;
    return CONTAINER_TAGS[el.tagName] || null;
  }

  function containerName(el) {
    const aria = el.getAttribute("aria-label");
    if (aria) return aria;
    const by = el.getAttribute("aria-labelledby");
    const ref = by && document.getElementById(by);
    if (ref) return ref.textContent;
    const caption = el.tagName === "FIELDSET" ? el.querySelector(":scope > legend")
      : el.tagName === "TABLE" ? el.querySelector(":scope > caption") : null;
    return caption ? caption.textContent : "";
  }

  // Flag bits, mirrored in webfactory_env/core/dom.py.
  const F = {CLICKABLE: 1, EDITABLE: 2, SELECTABLE: 4, DISABLED: 8, CHECKED: 16, FOCUSED: 32,
             OCCLUDED: 64, IN_FORM: 128, READONLY: 256, LINK: 512, TEXT: 1024, SELECTED: 2048,
             CHECKABLE: 4096, EXPANDABLE: 8192, EXPANDED: 16384, CURRENT: 32768};

  // The states a screen reader announces, from the element and its ARIA attributes.
  function stateFlags(el) {
    let flags = 0;
    const aria = (name) => el.getAttribute(name);
    if (el.disabled || aria("aria-disabled") === "true") flags |= F.DISABLED;
    const box = el.tagName === "INPUT" && (el.type === "checkbox" || el.type === "radio");
    if (box || aria("aria-checked") !== null || aria("aria-pressed") !== null) flags |= F.CHECKABLE;
    if ((box && el.checked) || aria("aria-checked") === "true" || aria("aria-pressed") === "true") {
      flags |= F.CHECKED;
    }
    if (aria("aria-selected") === "true") flags |= F.SELECTED;
    const expanded = aria("aria-expanded");
    const details = el.tagName === "SUMMARY" && el.parentElement && el.parentElement.tagName === "DETAILS"
      ? el.parentElement : null;
    if (expanded !== null || details) {
      flags |= F.EXPANDABLE;
      if (expanded === "true" || (details && details.open)) flags |= F.EXPANDED;
    }
    const current = aria("aria-current");
    if (current && current !== "false") flags |= F.CURRENT;
    return flags;
  }

  // The column header's text of the table cell `el` is (or is in); "" outside tables.
  function columnOf(el, heads) {
    const cell = el.closest("td, th");
    const table = cell && cell.closest("table");
    if (!table) return "";
    let head = heads.get(table);
    if (head === undefined) {
      head = (table.tHead && table.tHead.rows[0]) || null;
      const first = table.rows[0];
      if (!head && first && Array.from(first.cells).every((c) => c.tagName === "TH")) head = first;
      heads.set(table, head);
    }
    if (!head || head === cell.parentElement) return "";
    const th = head.cells[cell.cellIndex];
    return th ? squash(th.textContent, 200) : "";
  }

  // What names the value `el` shows, outside tables (a cell's is its column): the term
  // (`dt`) of the definition (`dd`) it is in, the definition of a term, or the text its
  // aria-labelledby points at; "" when nothing does.
  function labelOf(el) {
    const by = el.getAttribute("aria-labelledby");
    const ref = by && document.getElementById(by);
    if (ref && !isInteractive(el)) return squash(ref.textContent, 200);
    const dd = el.closest("dd");
    if (dd) {
      let dt = dd.previousElementSibling;
      while (dt && dt.tagName === "DD") dt = dt.previousElementSibling;
      return dt && dt.tagName === "DT" ? squash(dt.textContent, 200) : "";
    }
    const term = el.closest("dt");
    if (term) {
      let def = term.nextElementSibling;
      while (def && def.tagName === "DT") def = def.nextElementSibling;
      return def && def.tagName === "DD" ? squash(def.textContent, 200) : "";
    }
    return "";
  }

  // Side table: where the page's draggable items and drop zones are (in viewport pixels,
  // in view or not). Their instrumentation lives only in META, so only the runtime can say;
  // the coordinate oracle reads this to drag where the page offers a drag.
  function dragBoxes() {
    dragTargets = dragTargets.filter((el) => el.isConnected);
    const items = [], zones = [];
    for (const el of dragTargets) {
      const m = META.get(el), r = el.getBoundingClientRect();
      if (r.width < 1 || r.height < 1) continue;
      const box = [Math.round(r.left), Math.round(r.top), Math.round(r.width), Math.round(r.height)];
      if (m.drag !== undefined) {
        items.push({handler: m.drag, arg: m.da ?? null, sid: m.ds ?? null, key: m.dk ?? null, box});
      }
      if (m.drop !== undefined) zones.push({name: m.dn ?? "", value: m.drop, box});
    }
    return {items, zones};
  }

  // Visible, agent-perceivable elements in document order: interactive elements, and
  // elements carrying their own text outside any interactive element. One walk, layout
  // queries only for candidates, visibility checks only for what is in the viewport.
  function observe(opts) {
    const maxElements = opts.maxElements, maxText = opts.maxText || 8000;
    const vw = window.innerWidth, vh = window.innerHeight;
    const out = {tag: [], role: [], text: [], value: [], box: [], flags: [], sid: [], options: [],
                 secret: [], group: [], column: [], label: []};
    // Containers of observed elements only, made when the first one inside is observed.
    const groups = {role: [], name: [], parent: []};
    function groupIndex(ctx) {
      if (!ctx) return -1;
      if (ctx.index < 0) {
        const parent = groupIndex(ctx.parent);
        ctx.index = groups.role.length;
        groups.role.push(ctx.role);
        groups.name.push(squash(containerName(ctx.el), maxText));
        groups.parent.push(parent);
      }
      return ctx.index;
    }
    const offscreen = {};
    const focused = document.activeElement;
    const heads = new Map();
    elements = [];

    function consider(el, interactive, ctx) {
      const meta = META.get(el);
      const r = el.getBoundingClientRect();
      if (r.width < 1 || r.height < 1) return;
      const cx = r.left + r.width / 2, cy = r.top + r.height / 2;
      if (cx < 0 || cy < 0 || cx >= vw || cy >= vh || elements.length >= maxElements) {
        if (meta && meta.sid) offscreen[meta.sid] = cy < 0 ? -1 : 1;
        return;
      }
      if (!el.checkVisibility({opacityProperty: true, visibilityProperty: true})) return;
      const tag = el.tagName;
      let flags = stateFlags(el);
      if (interactive) {
        if (tag === "SELECT") flags |= F.SELECTABLE;
        else if ((tag === "INPUT" && TEXT_INPUTS.has(el.type)) || tag === "TEXTAREA"
                 || el.isContentEditable) {
          flags |= el.readOnly ? F.READONLY : F.EDITABLE;
        } else flags |= F.CLICKABLE;
        if (tag === "A") flags |= F.LINK;
        if (el.form) flags |= F.IN_FORM;
        if (focused === el) flags |= F.FOCUSED;
        const hit = document.elementFromPoint(cx, cy);
        if (hit && hit !== el && !el.contains(hit) && !hit.contains(el)) flags |= F.OCCLUDED;
      } else {
        flags |= F.TEXT;
      }
      elements.push(el);
      out.tag.push(tag.toLowerCase());
      out.role.push(roleOf(el));
      out.text.push(squash(interactive ? nameOf(el) : ownText(el), maxText));
      out.value.push(interactive ? squash(valueOf(el), maxText) : "");
      out.box.push([Math.round(r.left), Math.round(r.top), Math.round(r.width), Math.round(r.height)]);
      out.flags.push(flags);
      out.sid.push(meta && meta.sid ? meta.sid : null);
      out.secret.push(!!(meta && meta.r) || el.type === "password");
      out.options.push(tag === "SELECT" ? Array.from(el.options, o => squash(o.text, maxText)) : null);
      out.group.push(groupIndex(ctx));
      out.column.push(columnOf(el, heads));
      out.label.push(labelOf(el));
    }

    function visit(parent, inInteractive, ctx) {
      for (let el = parent.firstElementChild; el; el = el.nextElementSibling) {
        if (SKIP.has(el.tagName) || el.getAttribute("aria-hidden") === "true") continue;
        if (inInteractive) { visit(el, true, ctx); continue; }
        const interactive = isInteractive(el);
        const role = interactive ? null : containerRole(el);
        const inner = role ? {el, role, parent: ctx, index: -1} : ctx;
        if (interactive) consider(el, true, ctx);
        else if (!namesAControl(el) && SAYS.test(ownText(el))) consider(el, false, inner);
        visit(el, interactive, inner);
      }
    }
    visit(document.body, false, null);

    const se = document.scrollingElement || document.documentElement;
    observedScroll = [window.scrollX, window.scrollY];
    return {
      elements: out, offscreen, groups, drags: dragBoxes(),
      scroll_y: Math.round(window.scrollY), scroll_height: Math.round(se.scrollHeight),
      viewport: [vw, vh], route, title,
      can_back: stack.length > 1, pending: queue.length,
    };
  }

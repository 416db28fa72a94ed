// Checks a page for what an operator with a screen reader, a zoomed
// browser or poor eyesight needs, and returns the problems found, one
// string each. Evaluated in the page by browser_test.go, with every
// <details> open, so that what a click shows is checked too.
(() => {
  const problems = [];
  const say = (what) => problems.push(what);
  const text = (el) => (el.textContent || '').replace(/\s+/g, ' ').trim();

  // The document's language and title.
  if (!document.documentElement.lang) say('the html element has no lang');
  if (!document.title.trim()) say('the page has no title');

  // One h1, and no level skipped on the way down.
  const headings = [...document.querySelectorAll('h1, h2, h3, h4, h5, h6')];
  if (headings.filter((h) => h.tagName === 'H1').length !== 1) say('the page does not have exactly one h1');
  let level = 0;
  for (const h of headings) {
    const l = Number(h.tagName[1]);
    if (l > level + 1) say(`heading ${h.tagName} "${text(h)}" follows h${level}`);
    level = l;
  }

  // Every image has an accessible name.
  const nameOf = (el) => {
    const by = el.getAttribute('aria-labelledby');
    if (by) return by.split(/\s+/).map((id) => { const r = document.getElementById(id); return r ? text(r) : ''; }).join(' ').trim();
    const t = el.querySelector(':scope > title');
    return (el.getAttribute('aria-label') || el.getAttribute('alt') || (t ? text(t) : '')).trim();
  };
  for (const el of document.querySelectorAll('img, svg, [role="img"]')) {
    if (el.getAttribute('aria-hidden') === 'true' || el.getAttribute('role') === 'presentation') continue;
    if (!nameOf(el)) say(`${el.tagName.toLowerCase()} without an accessible name`);
  }

  // Every form control has a label; every link and button a name.
  for (const el of document.querySelectorAll('input:not([type="hidden"]), select, textarea')) {
    if (!((el.labels && el.labels.length) || el.getAttribute('aria-label') || el.getAttribute('aria-labelledby'))) {
      say(`${el.tagName.toLowerCase()} ${el.name || el.id} without a label`);
    }
  }
  for (const el of document.querySelectorAll('a, button, summary')) {
    if (!text(el) && !el.getAttribute('aria-label')) say(`${el.tagName.toLowerCase()} without a name`);
  }

  // Every table has header cells; every row header says its scope.
  for (const t of document.querySelectorAll('table')) {
    if (!t.querySelector('thead th')) say('a table without column headers');
    for (const th of t.querySelectorAll('tbody th')) {
      if (th.getAttribute('scope') !== 'row') say(`row header "${text(th)}" without scope="row"`);
    }
  }

  // The contrast of every text's colour on its background, WCAG 2's
  // formula: at least 4.5:1 for every text, large or not.
  const parse = (c) => {
    const m = /rgba?\(([^)]+)\)/.exec(c || '');
    if (!m) return null;
    const p = m[1].split(/[\s,/]+/).filter(Boolean).map(Number);
    return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
  };
  const over = (top, under) => ({
    r: top.r * top.a + under.r * (1 - top.a),
    g: top.g * top.a + under.g * (1 - top.a),
    b: top.b * top.a + under.b * (1 - top.a),
    a: 1,
  });
  const lum = ({ r, g, b }) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const background = (el) => {
    const chain = [];
    for (let e = el; e; e = e.parentElement) chain.push(e);
    let bg = { r: 255, g: 255, b: 255, a: 1 }; // the canvas
    for (const e of chain.reverse()) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c.a > 0) bg = over(c, bg);
    }
    return bg;
  };
  const seen = new Set();
  let checked = 0;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!n.textContent.trim() || seen.has(el)) continue;
    seen.add(el);
    if (el.closest('title, desc, style, script')) continue; // not drawn
    if (!el.getClientRects().length) continue; // not rendered
    const st = getComputedStyle(el);
    const fg = parse(el instanceof SVGElement ? st.fill : st.color);
    if (!fg) { say(`no colour for "${text(el)}"`); continue; }
    const bg = background(el);
    const a = lum(over(fg, bg)), b = lum(bg);
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    checked++;
    if (ratio < 4.5) say(`contrast ${ratio.toFixed(2)}:1 for "${text(el).slice(0, 40)}" (${st.color} on rgb(${bg.r}, ${bg.g}, ${bg.b}))`);
  }
  if (checked < 20) say(`only ${checked} texts were checked for contrast`);
  return problems;
})()

// Run in the page by tests/support/layout.py: a line per layout problem of the screen as rendered now.
// A word is a run of letters short enough to fit any box: breaking one is a layout bug ("Evalu/ate"); longer
// runs (identifiers, hashes) may break where they must. Only what is rendered and visible is checked.
() => {
  const problems = [];
  const viewport = document.documentElement.clientWidth;
  const describe = (el) => {
    const id = el.getAttribute("data-testid");
    const cls = typeof el.className === "string" && el.className ? "." + el.className.trim().split(/\s+/).join(".") : "";
    const text = (el.innerText || el.value || "").trim().replace(/\s+/g, " ").slice(0, 60);
    return `<${el.tagName.toLowerCase()}${id ? ` data-testid=${id}` : ""}${cls}> "${text}"`;
  };
  const visible = (el) => {
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || style.display === "none") return false;
    const rect = el.getBoundingClientRect();
    return rect.width > 0 && rect.height > 0;
  };
  // Whether an ancestor clips or scrolls sideways what overflows it (a scroller is a way to see it all).
  const clippedBy = (el) => {
    for (let node = el.parentElement; node && node !== document.body; node = node.parentElement) {
      const overflow = getComputedStyle(node).overflowX;
      if (overflow !== "visible") return node;
    }
    return null;
  };
  // A tooltip on the value, its cell or the text inside it; or a row that opens the whole case (an expand).
  const seeable = (el) =>
    Boolean(el.closest("[title]")?.getAttribute("title") || el.querySelector("[title]") || el.closest("[data-expandable]"));

  if (document.documentElement.scrollWidth > viewport + 1) {
    problems.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} px wide in ${viewport} px`);
  }
  for (const el of document.body.querySelectorAll("*")) {
    if (["SCRIPT", "STYLE", "OPTION", "CANVAS", "svg", "path"].includes(el.tagName) || !visible(el)) continue;
    const style = getComputedStyle(el);
    const rect = el.getBoundingClientRect();
    const clipper = clippedBy(el);
    if (!clipper && (rect.right > viewport + 1 || rect.left < -1)) {
      problems.push(`overflows the viewport (${Math.round(rect.left)}..${Math.round(rect.right)} px): ${describe(el)}`);
    }
    // Content wider than its box: spilling out (overflow visible), or cut (hidden) with no title to read it.
    const wide = el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0;
    if (wide && style.overflowX === "visible" && style.display !== "inline" && !["INPUT", "SELECT", "TEXTAREA", "TABLE"].includes(el.tagName)) {
      problems.push(`content overflows its box (${el.scrollWidth} > ${el.clientWidth} px): ${describe(el)}`);
    }
    if (wide && style.overflowX === "hidden" && !seeable(el)) {
      problems.push(`a value is cut with no way to read it whole: ${describe(el)}`);
    }
    if (el.tagName === "INPUT" && el.type !== "checkbox" && el.type !== "radio" && el.readOnly === false && el.value && el.scrollWidth > el.clientWidth + 1 && el.closest("[data-enum]")) {
      problems.push(`a choice is cut in its box: ${describe(el)}`);
    }
    if (el.tagName === "SELECT" && el.selectedIndex >= 0 && !seeable(el)) {
      const canvas = document.createElement("canvas").getContext("2d");
      canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      const text = el.options[el.selectedIndex].text;
      const room = el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 16;
      if (canvas.measureText(text).width > room + 1) problems.push(`a choice is cut in its box: ${describe(el)} "${text.slice(0, 60)}"`);
    }
  }
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || ["SCRIPT", "STYLE", "OPTION", "TEXTAREA"].includes(parent.tagName) || !visible(parent)) continue;
    for (const match of node.data.matchAll(/\p{L}{2,20}/gu)) {
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
      if (tops.size > 1) problems.push(`a word is broken across lines: "${match[0]}" in ${describe(parent)}`);
    }
  }
  return [...new Set(problems)];
}

// Citation cards (prefixlab/presenting/book/citations.py): "显示原文" fetches the pinned lines from
// raw.githubusercontent.com on demand. Offline, the card keeps its link and explanation
// and says why the lines are not shown. Text is inserted with textContent, never as HTML.
// Line notes (.prefixlab-noted): a noted line is a link to its note in the list under the code,
// which is all a reader without JavaScript gets; here a click (or Enter) shows the note right
// under the line instead, and the list is hidden.
(function () {
  "use strict";
  const TIMEOUT_MS = 10000;

  function showLines(card, text) {
    const first = Number(card.dataset.firstLine);
    const last = Number(card.dataset.lastLine);
    const lines = text.split("\n").slice(first - 1, last);
    if (lines.length === 0) throw new Error("文件比钉住的行号短");
    const width = String(last).length;
    const pre = card.querySelector(".prefixlab-citation__source");
    pre.textContent = lines
      .map((line, i) => String(first + i).padStart(width, " ") + "  " + line)
      .join("\n");
    pre.hidden = false;
  }

  async function onShow(card, button, status) {
    button.disabled = true;
    status.textContent = "正在获取原文……";
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), TIMEOUT_MS);
    try {
      const response = await fetch(card.dataset.rawUrl, { signal: controller.signal });
      if (!response.ok) throw new Error("HTTP " + response.status);
      showLines(card, await response.text());
      status.textContent = "";
      button.hidden = true;
    } catch (error) {
      status.textContent =
        "无法获取原文(可能处于离线状态:" + error.message + ")。请打开上面的永久链接查看。";
      button.disabled = false;
    } finally {
      clearTimeout(timer);
    }
  }

  function toggleNote(listing, line) {
    const open = line.getAttribute("aria-expanded") === "true";
    const shown = listing.querySelector('.prefixlab-notes__shown[data-note="' + line.dataset.note + '"]');
    if (shown) shown.remove();
    line.setAttribute("aria-expanded", String(!open));
    if (open) return;
    const item = listing.querySelector('.prefixlab-notes__list li[data-note="' + line.dataset.note + '"]');
    const note = document.createElement("span");
    note.className = "prefixlab-notes__shown";
    note.dataset.note = line.dataset.note;
    note.setAttribute("role", "note");
    note.textContent = item.textContent;
    // Right after the line's newline, so the note sits under the line without a blank line.
    const next = line.nextSibling;
    if (next && next.nodeType === Node.TEXT_NODE && next.data.startsWith("\n")) {
      next.splitText(1);
      next.after(note);
    } else {
      line.after(note);
    }
  }

  function initNotes(listing) {
    if (listing.classList.contains("prefixlab-noted--live")) return;
    listing.classList.add("prefixlab-noted--live");
    listing.querySelectorAll(".prefixlab-notes__line").forEach((line) => {
      line.setAttribute("role", "button");
      line.setAttribute("aria-expanded", "false");
      line.addEventListener("click", (event) => {
        event.preventDefault();
        toggleNote(listing, line);
      });
    });
  }

  function init() {
    document.querySelectorAll(".prefixlab-noted").forEach(initNotes);
    document.querySelectorAll(".prefixlab-citation").forEach((card) => {
      const button = card.querySelector(".prefixlab-citation__show");
      const status = card.querySelector(".prefixlab-citation__status");
      if (!button || !status || !card.dataset.rawUrl) return;
      button.hidden = false;
      button.addEventListener("click", () => onShow(card, button, status));
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();

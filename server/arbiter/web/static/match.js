// A match's page: steps through an ended match's replay, or follows a running match over its
// event stream. What it needs comes from the page: #viewer's data-match, data-live, data-last, and
// #board's data-step.
(function () {
  "use strict";
  const viewer = document.getElementById("viewer");
  const board = document.getElementById("board");
  const stepText = document.getElementById("step");
  const matchId = viewer.dataset.match;
  const base = "/matches/" + encodeURIComponent(matchId);
  function fmt(v) { return v === null || v === undefined ? "-" : v.toFixed(2) + "s"; }
  function cap(text) { return text ? text.charAt(0).toUpperCase() + text.slice(1) : ""; }

  // Beside the board: scores, colours, clocks and whose turn, from a frame (its status is made
  // by the server from the public view; the names are the page's own).
  const statusBox = document.getElementById("status");
  let ticking = null;
  function showStatus(frame, live) {
    if (!statusBox || !frame || !frame.status) return;
    const st = frame.status;
    const mover = st.to_move === null || st.to_move === undefined ? null : String(st.to_move);
    statusBox.querySelectorAll(".seat").forEach(function (box) {
      const seat = box.dataset.seat;
      const colour = box.querySelector(".colour");
      if (colour && st.colours && st.colours[seat]) colour.textContent = cap(st.colours[seat]);
      const score = box.querySelector(".score");
      if (st.scores && seat in st.scores) score.textContent = st.scores[seat];
      box.querySelector(".clock").textContent = fmt(frame.clocks ? frame.clocks[seat] : null);
      box.classList.toggle("to-move", seat === mover);
    });
    const turn = statusBox.querySelector(".turn");
    if (mover) {
      const box = statusBox.querySelector('.seat[data-seat="' + mover + '"]');
      const who = box ? box.querySelector(".who").textContent : "seat " + mover;
      const colour = st.colours && st.colours[mover] ? " (" + cap(st.colours[mover]) + ")" : "";
      turn.textContent = "to move: " + who + colour;
    } else {
      turn.textContent = frame.over ? "game over" : "";
    }
    if (ticking !== null) { clearInterval(ticking); ticking = null; }
    // A live page counts the mover's clock down between frames (the server's numbers come with
    // each frame; this is only the display in between).
    if (live && mover && frame.clocks && typeof frame.clocks[mover] === "number" && !frame.over) {
      const from = frame.clocks[mover];
      const since = performance.now();
      const clock = statusBox.querySelector('.seat[data-seat="' + mover + '"] .clock');
      ticking = setInterval(function () {
        clock.textContent = fmt(Math.max(0, from - (performance.now() - since) / 1000));
      }, 100);
    }
  }

  function replay() {
    const last = parseInt(viewer.dataset.last, 10);
    const slider = document.getElementById("slider");
    const cache = new Map();
    let frames = null;
    fetch("/api" + base).then(r => r.json()).then(function (page) { frames = page.frames; });
    let step = parseInt(board.dataset.step, 10);
    let wanted = step;
    function svgOf(n) {
      if (!cache.has(n)) {
        cache.set(n, fetch(base + "/board/" + n).then(r => r.text()));
      }
      return cache.get(n);
    }
    async function show(n) {
      n = Math.max(0, Math.min(last, n));
      wanted = n;
      const svg = await svgOf(n);
      if (wanted !== n) return;
      step = n;
      board.innerHTML = svg;
      board.dataset.step = String(n);
      stepText.textContent = n;
      slider.value = n;
      document.querySelectorAll("#moves tr.current").forEach(r => r.classList.remove("current"));
      const row = document.querySelector('#moves tr[data-ply="' + n + '"]');
      if (row) { row.classList.add("current"); row.scrollIntoView({block: "nearest"}); }
      history.replaceState(null, "", "?step=" + n);
      if (frames) showStatus(frames.find(f => f.ply === n), false);
      if (n + 1 <= last) svgOf(n + 1);
    }
    function go(id, f) {
      document.getElementById(id).addEventListener("click", function (e) { e.preventDefault(); show(f()); });
    }
    go("first", () => 0); go("prev", () => wanted - 1); go("next", () => wanted + 1); go("last", () => last);
    slider.addEventListener("input", () => show(parseInt(slider.value, 10)));
    document.querySelectorAll("#moves a").forEach(a => a.addEventListener("click", function (e) {
      e.preventDefault(); show(parseInt(a.closest("tr").dataset.ply, 10));
    }));
    document.addEventListener("keydown", function (e) {
      if (e.target === slider) return;
      if (e.key === "ArrowRight") { e.preventDefault(); show(wanted + 1); }
      else if (e.key === "ArrowLeft") { e.preventDefault(); show(wanted - 1); }
      else if (e.key === "Home") { e.preventDefault(); show(0); }
      else if (e.key === "End") { e.preventDefault(); show(last); }
    });
  }

  // Surge: a round's hidden moves are told by the frame that turns its stones face up.
  function reveal(revealed) {
    Object.keys(revealed || {}).forEach(function (ply) {
      const row = document.querySelector('#moves tr[data-ply="' + ply + '"]');
      if (row) row.children[2].firstChild.textContent = revealed[ply];
    });
  }

  function follow() {
    const rows = document.querySelector("#moves tbody");
    const source = new EventSource(base + "/events");
    let shown = parseInt(board.dataset.step, 10);
    source.addEventListener("frame", function (e) {
      const f = JSON.parse(e.data);
      if (f.ply < shown) return;  // the backlog of what the page shows already
      shown = f.ply;
      board.innerHTML = f.svg;
      board.dataset.step = String(f.ply);
      stepText.textContent = f.ply;
      showStatus(f, true);
      if (f.seat !== null && !document.querySelector('#moves tr[data-ply="' + f.ply + '"]')) {
        const tr = document.createElement("tr");
        tr.dataset.ply = f.ply;
        const cells = [f.ply, f.seat, (f.action === null ? "(hidden)" : f.action) + (f.auto ? " (" + f.auto + ")" : ""),
                       fmt(f.charged), fmt(f.clocks["1"]), fmt(f.clocks["2"])];
        cells.forEach(function (c, i) {
          const td = document.createElement("td"); td.textContent = c; if (i !== 1 && i !== 2) td.className = "num";
          tr.appendChild(td);
        });
        rows.appendChild(tr);
        // The move list follows the current move.
        document.querySelectorAll("#moves tr.current").forEach(r => r.classList.remove("current"));
        tr.classList.add("current");
        tr.scrollIntoView({block: "nearest"});
      }
      reveal(f.revealed);
    });
    source.addEventListener("end", function () {
      source.close();
      document.getElementById("live-status").textContent = "over: loading the replay";
      setTimeout(() => location.reload(), 1500);
    });
  }

  if (viewer.dataset.live === "yes") follow(); else replay();
})();

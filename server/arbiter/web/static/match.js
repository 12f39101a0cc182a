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

  function replay() {
    const last = parseInt(viewer.dataset.last, 10);
    const slider = document.getElementById("slider");
    const cache = new Map();
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

  function follow() {
    const rows = document.querySelector("#moves tbody");
    const source = new EventSource(base + "/events");
    let shown = parseInt(board.dataset.step, 10);
    source.addEventListener("frame", function (e) {
      const f = JSON.parse(e.data);
      if (f.ply < shown) return;
      shown = f.ply;
      board.innerHTML = f.svg;
      board.dataset.step = String(f.ply);
      stepText.textContent = f.ply;
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
      }
    });
    source.addEventListener("end", function () {
      source.close();
      document.getElementById("live-status").textContent = "over: loading the replay";
      setTimeout(() => location.reload(), 1500);
    });
  }

  if (viewer.dataset.live === "yes") follow(); else replay();
})();

// The live page: every running match's board, kept up to date from one event stream.
(function () {
  "use strict";
  const box = document.getElementById("live-matches");
  const empty = document.getElementById("live-empty");
  const source = new EventSource("/live/events");
  source.addEventListener("frame", function (e) {
    const f = JSON.parse(e.data);
    let card = document.getElementById("live-" + f.match_id);
    if (!card) {
      card = document.createElement("section");
      card.className = "card live-match"; card.id = "live-" + f.match_id; card.dataset.match = f.match_id;
      const title = document.createElement("h3");
      const link = document.createElement("a");
      link.href = "/matches/" + encodeURIComponent(f.match_id);
      link.textContent = "match " + f.match_id.slice(0, 10);
      title.appendChild(link);
      const move = document.createElement("p");
      const ply = document.createElement("span");
      ply.className = "ply";
      move.append("move ", ply);
      const boardBox = document.createElement("div");
      boardBox.className = "board-box";
      card.append(title, move, boardBox);
      box.appendChild(card);
    }
    card.querySelector(".ply").textContent = f.ply;
    card.querySelector(".board-box").innerHTML = f.svg;
    empty.hidden = true;
  });
  source.addEventListener("end", function (e) {
    const card = document.getElementById("live-" + JSON.parse(e.data).match_id);
    if (card) { card.classList.add("ended"); card.querySelector("p").append(" · over"); }
  });
})();

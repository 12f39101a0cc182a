// The home page's featured match ("TV"): its board follows the match's event stream; when it is
// over, the page is loaded again to feature the next one.
(function () {
  "use strict";
  const card = document.getElementById("tv");
  if (!card) return;
  const source = new EventSource("/matches/" + encodeURIComponent(card.dataset.match) + "/events");
  source.addEventListener("frame", function (e) {
    const f = JSON.parse(e.data);
    card.querySelector(".ply").textContent = f.ply;
    card.querySelector(".board-box").innerHTML = f.svg;
  });
  source.addEventListener("end", function () {
    source.close();
    card.querySelector("p").append(" · over");
    setTimeout(() => location.reload(), 5000);
  });
})();

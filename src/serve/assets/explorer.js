// The explorer page of `ioa serve`: everything comes from the JSON API (docs/serve.md); the
// chart is the SVG `ioa view` draws, for the path so far.
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
  let busy = false;
  async function call(method, url, body) {
    if (busy) return;
    busy = true;
    try {
      const r = await fetch(url, {
        method,
        headers: { "Content-Type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const j = await r.json();
      if (!r.ok) { $("error").textContent = j.error; return; }
      $("error").textContent = "";
      render(j);
    } catch (e) {
      $("error").textContent = String(e);
    } finally {
      busy = false;
    }
  }
  function render(s) {
    $("where").textContent = "— step " + s.step + " of the path, " + s.enabled.length + " enabled";
    $("back").disabled = !s.can_back;
    $("forward").disabled = !s.can_forward;
    $("enabled").innerHTML = s.enabled
      .map((e) => '<li><a href="#" data-index="' + e.index + '" data-action="' + esc(e.action) + '">' + esc(e.line) + "</a></li>")
      .join("") || "<li>none: no action is enabled (deadlock)</li>";
    $("invariants").innerHTML = s.invariants
      .map((i) => '<li class="' + (i.holds === true ? "holds" : i.holds === false ? "violated" : "error") + '" title="' + esc(i.error || "") + '">' + esc(i.name) + "</li>")
      .join("") || "<li>the automaton declares none</li>";
    $("state").innerHTML = s.vars
      .map((v) => '<tr class="' + (v.changed ? "changed" : "") + '"><td>' + esc(v.name) + "</td><td>" + esc(v.value) + "</td></tr>")
      .join("");
    $("chart").innerHTML = s.chart;
    document.body.dataset.step = String(s.step);
  }
  $("enabled").addEventListener("click", (e) => {
    const a = e.target.closest("a[data-index]");
    if (!a) return;
    e.preventDefault();
    call("POST", "/api/fire", { index: Number(a.dataset.index) });
  });
  $("back").addEventListener("click", () => call("POST", "/api/back"));
  $("forward").addEventListener("click", () => call("POST", "/api/forward"));
  $("restart").addEventListener("click", () => call("POST", "/api/start", { index: 0 }));
  document.addEventListener("keydown", (e) => {
    if (e.key === "ArrowLeft") call("POST", "/api/back");
    else if (e.key === "ArrowRight") call("POST", "/api/forward");
  });
  call("GET", "/api/state");
})();

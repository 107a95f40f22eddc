// The trace page's behaviour: selection (click, arrow keys, #step=K), the state at the selected
// step with the variables it changed highlighted, and per-lifeline filtering. The chart itself is
// drawn by `ioa view` (src/view/svg.rs); the data is the JSON of src/view/chart.rs.
(function () {
  "use strict";
  const D = JSON.parse(document.getElementById("ioa-data").textContent);
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
  const lane = (l) => (l === null || l === undefined ? "" : " l" + l);
  const bad = D.highlight ? D.highlight.step : -1;
  document.getElementById("verdict").innerHTML = [
    D.highlight && '<a data-step="' + bad + '">step ' + bad + "</a>: " + esc(D.highlight.reason),
    D.critical && 'critical <a data-step="' + D.critical.step + '">step ' + D.critical.step + "</a>: " + esc(D.critical.reason),
  ].filter(Boolean).join("<br>");
  // Per-lifeline filter: one generated style rule per hidden lifeline.
  const filter = document.getElementById("filter");
  const rules = document.createElement("style");
  document.head.appendChild(rules);
  const hidden = new Set();
  filter.innerHTML = D.lanes
    .map((n, i) => '<label><input type="checkbox" checked data-lane="' + i + '"> ' + esc(n) + "</label>")
    .join("");
  filter.addEventListener("change", (e) => {
    const i = e.target.dataset.lane;
    if (e.target.checked) hidden.delete(i); else hidden.add(i);
    rules.textContent = [...hidden].map((l) => ".l" + l + "{display:none}").join("\n");
  });
  function stateAt(k) {
    const st = D.start.slice();
    for (let i = 1; i <= k; i++) for (const [v, val] of D.steps[i].changes) st[v] = val;
    return st;
  }
  const svg = document.querySelector("#chart svg");
  const sel = document.getElementById("sel");
  const top = Number(svg.dataset.top), rowH = Number(svg.dataset.row);
  let cur = -1;
  function select(k) {
    k = Math.max(0, Math.min(D.steps.length - 1, k));
    cur = k;
    sel.setAttribute("y", String(top + k * rowH));
    document.getElementById("s" + k).scrollIntoView({ block: "nearest" });
    const st = stateAt(k);
    const prev = k > 0 ? stateAt(k - 1) : st;
    const changed = new Set(D.steps[k].changes.map((c) => c[0]));
    document.getElementById("state").innerHTML =
      "<div>state " + k + (k > 0 ? ", after " + esc(D.steps[k].line) : " (start)") + "; " + changed.size + " variable(s) changed</div><table>" +
      D.vars
        .map((n, v) =>
          '<tr data-var="' + esc(n) + '" class="' + lane(D.var_lane[v]) + (changed.has(v) ? " changed" : "") + '"><td class="var">' + esc(n) +
          '</td><td class="val">' + esc(st[v]) + (changed.has(v) ? '<span class="was">' + esc(prev[v]) + "</span>" : "") + "</td></tr>")
        .join("") +
      "</table>";
    history.replaceState(null, "", "#step=" + k);
  }
  const pick = (e) => {
    const t = e.target.closest("[data-step]");
    if (t) select(Number(t.dataset.step));
  };
  // A click anywhere in a row of the chart selects its step.
  svg.addEventListener("click", (e) => {
    const k = Math.floor((e.clientY - svg.getBoundingClientRect().top - top) / rowH);
    if (k >= 0 && k < D.steps.length) select(k);
  });
  document.getElementById("verdict").addEventListener("click", pick);
  document.addEventListener("keydown", (e) => {
    const d = { ArrowDown: 1, ArrowRight: 1, j: 1, ArrowUp: -1, ArrowLeft: -1, k: -1 }[e.key];
    if (d) { select(cur + d); e.preventDefault(); }
    else if (e.key === "Home") select(0);
    else if (e.key === "End") select(D.steps.length - 1);
  });
  const m = /step=(\d+)/.exec(location.hash);
  select(m ? Number(m[1]) : bad >= 0 ? bad : 0);
  document.body.dataset.ready = "1";
  // For load-time measurements (tests/browser.rs): milliseconds since navigation start.
  performance.mark("ioa-ready");
})();

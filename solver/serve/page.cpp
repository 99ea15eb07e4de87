#include "solver/serve/page.hpp"

namespace kalah::serve {

const std::string& explorer_page() {
  static const std::string page = R"PAGE(<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>kalah explorer</title>
<style>
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.3em; margin: 0 0 .6em; }
#layout { display: flex; flex-wrap: wrap; gap: 2em; align-items: flex-start; }
#side { max-width: 19em; }
table.board { border-collapse: separate; border-spacing: 6px; }
table.board td { width: 3.4em; height: 3.4em; text-align: center; vertical-align: middle;
  border: 2px solid #8a6d3b; border-radius: 50%; background: #f7efe2; font-size: 1.1em; }
table.board td.store { border-radius: 1.2em; background: #efe2c8; font-weight: bold; }
table.board td.legal { cursor: pointer; }
table.board td.legal:hover { outline: 3px solid #333; }
td .val { display: block; font-size: .7em; font-weight: bold; }
.win { background: #cdeccd !important; } .draw { background: #f3f0c0 !important; }
.loss { background: #f3cccc !important; } .unknown { background: #e4e4e4 !important; }
#moves li { cursor: pointer; margin: .2em 0; padding: .1em .4em; border-radius: .3em; }
#status { margin: .6em 0; min-height: 1.2em; }
.played { font-family: monospace; }
fieldset { margin: .8em 0; } label { margin-right: .8em; }
input[type=text] { font-family: monospace; width: 26em; }
</style>
</head>
<body>
<h1>kalah explorer</h1>
<div id="layout">
<div>
  <table class="board" id="board"></table>
  <div id="status"></div>
  <div>
    <button id="back" title="back one sowing">&larr; back</button>
    <button id="forward" title="forward one sowing">forward &rarr;</button>
    <a id="link" href="#">link to this position</a>
  </div>
  <p class="played">Finnish: <span id="finnish"></span><br>Irving: <span id="irving"></span></p>
</div>
<div id="side">
  <div id="summary"></div>
  <ol id="moves"></ol>
</div>
</div>
<fieldset>
  <legend>Rules and position</legend>
  <label>rules <select id="rules">
    <option value="standard">standard</option><option value="empty-capture">empty capture</option>
    <option value="bga">bga</option><option value="relay">relay</option></select></label>
  <label>pits <input id="pits" type="number" min="1" max="8" value="6" style="width:3em"></label>
  <label>seeds <input id="seeds" type="number" min="0" max="12" value="4" style="width:3em"></label>
  <button id="start">new game</button><br><br>
  <label>position <input id="position" type="text" spellcheck="false"></label>
  <button id="set">set up</button>
  <div><small>Position text: South's pits left to right, North's pits from North's left, the two stores,
  the side to move, e.g. 4,4,4,4,4,4/4,4,4,4,4,4/0/0/S.</small></div>
</fieldset>
<script>
"use strict";
const $ = (id) => document.getElementById(id);
let history = [];   // [{position, ply}] ply = {side, pit (1-based), capture, extra} that led here
let at = 0;
let rules = "standard";
let answer = null;
let serial = 0;

function parsePosition(text) {
  const parts = text.split("/");
  const south = parts[0].split(",").map(Number), north = parts[1].split(",").map(Number);
  return {south, north, stores: [Number(parts[2]), Number(parts[3])], toMove: parts[4]};
}
function outcomeClass(value, mover) {
  if (value === null || value === undefined) return "unknown";
  const v = mover === "S" ? value : -value;
  return v > 0 ? "win" : v < 0 ? "loss" : "draw";
}
function valueText(m) {
  if (m.value !== null) return (m.value > 0 ? "+" : "") + m.value;
  return "[" + m.lower + ", " + m.upper + "]";
}
function drawBoard() {
  let pos;
  try {
    pos = parsePosition(history[at].position);
    if (!pos.north || pos.south.length !== pos.north.length || pos.south.some(isNaN)) throw new Error();
  } catch (e) {
    $("board").innerHTML = "";  // not a position: the server's answer says why
    return;
  }
  const m = pos.south.length;
  const byPit = {};
  if (answer) for (const mv of answer.moves) byPit[mv.pit] = mv;
  const cell = (side, i) => {
    const td = document.createElement("td");
    const seeds = side === "S" ? pos.south[i] : pos.north[i];
    td.textContent = seeds;
    td.title = (side === "S" ? "South" : "North") + " pit " + (i + 1);
    td.dataset.side = side; td.dataset.pit = i + 1;
    if (side === pos.toMove && answer && byPit[i + 1]) {
      const mv = byPit[i + 1];
      td.classList.add("legal", outcomeClass(mv.value === null ? null : mv.value, pos.toMove));
      const v = document.createElement("span"); v.className = "val"; v.textContent = valueText(mv);
      td.appendChild(v);
      td.onclick = () => play(mv);
    }
    return td;
  };
  const board = $("board"); board.innerHTML = "";
  const top = board.insertRow(), bottom = board.insertRow();
  const ns = document.createElement("td"); ns.className = "store"; ns.rowSpan = 2; ns.textContent = pos.stores[1];
  ns.title = "North's store"; top.appendChild(ns);
  for (let i = m - 1; i >= 0; --i) top.appendChild(cell("N", i));
  for (let i = 0; i < m; ++i) bottom.appendChild(cell("S", i));
  const ss = document.createElement("td"); ss.className = "store"; ss.rowSpan = 2; ss.textContent = pos.stores[0];
  ss.title = "South's store"; top.appendChild(ss);
}
function notations() {
  const turns = [];
  for (let i = 1; i <= at; ++i) {
    const p = history[i].ply;
    if (!turns.length || turns[turns.length - 1].side !== p.side) turns.push({side: p.side, plies: []});
    turns[turns.length - 1].plies.push(p);
  }
  const irving = turns.map(t => t.plies.map(p => p.pit - 1).join("")).join("-");
  const items = [];
  for (const t of turns) {
    const text = t.plies.map(p => p.pit + (p.capture ? "*" : "")).join("");
    if (t.side === "S") items.push({s: text, n: null});
    else if (items.length && items[items.length - 1].n === null) items[items.length - 1].n = text;
    else items.push({s: "", n: text});
  }
  const finnish = items.map(x => x.s + "-" + (x.n || "")).join(", ");
  $("finnish").textContent = finnish || "(none)";
  $("irving").textContent = irving || "(none)";
}
function showAnswer() {
  const list = $("moves"); list.innerHTML = "";
  const summary = $("summary");
  if (!answer) { summary.textContent = ""; drawBoard(); return; }
  const mover = answer.to_move === "S" ? "South" : "North";
  const v = answer.value;
  summary.textContent = answer.game_over ? "Game over: " + (v > 0 ? "South wins by " + v : v < 0 ? "North wins by " + -v : "draw")
    : mover + " to move. Value (South minus North): " + (v !== null ? (v > 0 ? "+" : "") + v : "between " + answer.lower + " and " + answer.upper)
      + (answer.interrupted ? " (search budget reached)" : "");
  for (const mv of answer.moves) {
    const li = document.createElement("li");
    li.className = outcomeClass(mv.value, answer.to_move);
    li.textContent = "pit " + mv.pit + ": " + valueText(mv) + (mv.extra_turn ? ", extra turn" : "") +
      (mv.capture ? ", capture" : "") + " (" + mv.source + ")";
    li.dataset.pit = mv.pit;
    li.onclick = () => play(mv);
    list.appendChild(li);
  }
  drawBoard();
}
function query(position) {
  const q = new URLSearchParams();
  q.set("position", position);
  q.set("rules", rules);
  return q;
}
async function refresh() {
  const position = history[at].position;
  $("position").value = position;
  $("back").disabled = at === 0; $("forward").disabled = at + 1 >= history.length;
  notations();
  const q = query(position);
  const url = "?" + q.toString();
  $("link").href = url;
  history_state(url);
  answer = null; showAnswer();
  $("status").textContent = "solving ...";
  const mine = ++serial;
  try {
    const r = await fetch("/api/v1/solve?" + q.toString());
    const body = await r.json();
    if (mine !== serial) return;
    if (!r.ok) { $("status").textContent = "error: " + body.error; return; }
    answer = body;
    $("status").textContent = (body.nodes || 0) + " nodes, " + body.seconds.toFixed(3) + " s";
    showAnswer();
  } catch (e) {
    if (mine === serial) $("status").textContent = "error: " + e;
  }
}
function history_state(url) { try { window.history.replaceState(null, "", url); } catch (e) {} }
function play(mv) {
  if (!answer) return;
  history = history.slice(0, at + 1);
  history.push({position: mv.position, ply: {side: answer.to_move, pit: mv.pit, capture: mv.capture, extra: mv.extra_turn}});
  at = history.length - 1;
  refresh();
}
function startFrom(position) { history = [{position, ply: null}]; at = 0; refresh(); }
function startPosition(m, n) {
  const side = Array(m).fill(n).join(",");
  return side + "/" + side + "/0/0/S";
}
$("back").onclick = () => { if (at > 0) { --at; refresh(); } };
$("forward").onclick = () => { if (at + 1 < history.length) { ++at; refresh(); } };
$("start").onclick = () => { rules = $("rules").value; startFrom(startPosition(+$("pits").value, +$("seeds").value)); };
$("set").onclick = () => { rules = $("rules").value; startFrom($("position").value.trim()); };
$("rules").onchange = () => { rules = $("rules").value; refresh(); };
const params = new URLSearchParams(window.location.search);
if (params.get("rules")) { rules = params.get("rules"); $("rules").value = rules; }
startFrom(params.get("position") || startPosition(6, 4));
</script>
</body>
</html>
)PAGE";
  return page;
}

}  // namespace kalah::serve

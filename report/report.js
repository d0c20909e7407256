// gopsim report: draws the charts from the JSON in #gopsim-data into inline
// SVG (and a canvas for the timeline). No library, no network. When every
// chart is drawn, the body's data-rendered attribute becomes "ok"; a script
// error shows in #errors and makes it "error".
(function () {
  "use strict";
  var errors = [];
  function report(msg) {
    errors.push(msg);
    var box = document.getElementById("errors");
    if (box) {
      box.hidden = false;
      box.textContent = "Script errors (the charts may be incomplete):\n" + errors.join("\n");
    }
    document.body.setAttribute("data-rendered", "error");
  }
  window.onerror = function (msg, src, line, col) {
    report(msg + " (line " + line + ":" + col + ")");
  };
  window.addEventListener("unhandledrejection", function (e) { report("unhandled rejection: " + e.reason); });

  var SVG = "http://www.w3.org/2000/svg";
  var COLORS = {
    "calc": "#4e79a7", "send overhead": "#f28e2b", "recv overhead": "#e15759", "overhead": "#f28e2b",
    "wait": "#bab0ac", "noise": "#b07aa1", "other": "#cfd6dc", "finishing time": "#4e79a7", "send": "#f28e2b", "recv": "#e15759", "latency": "#59a14f", "bandwidth": "#edc948"
  };
  var PALETTE = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac", "#1f77b4", "#8c564b"];

  function el(tag, attrs, parent, text) {
    var e = document.createElementNS(SVG, tag);
    for (var k in attrs) { if (Object.prototype.hasOwnProperty.call(attrs, k)) e.setAttribute(k, attrs[k]); }
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function svg(container, w, h) {
    return el("svg", { width: w, height: h, viewBox: "0 0 " + w + " " + h, role: "img" }, container);
  }
  function tip(node, text) { el("title", {}, node, text); }

  // fmtNs formats a time in ns with a readable unit.
  function fmtNs(ns) {
    var a = Math.abs(ns);
    if (a >= 1e9) return +(ns / 1e9).toPrecision(4) + " s";
    if (a >= 1e6) return +(ns / 1e6).toPrecision(4) + " ms";
    if (a >= 1e3) return +(ns / 1e3).toPrecision(4) + " µs";
    return +ns.toPrecision(4) + " ns";
  }
  function fmtNum(v) {
    var a = Math.abs(v);
    if (a >= 1e9) return +(v / 1e9).toPrecision(3) + "G";
    if (a >= 1e6) return +(v / 1e6).toPrecision(3) + "M";
    if (a >= 1e4) return +(v / 1e3).toPrecision(3) + "k";
    return String(+v.toPrecision(4));
  }
  function withCommas(n) { return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ","); }

  // niceTicks returns about n round values covering [lo, hi].
  function niceTicks(lo, hi, n) {
    if (!(hi > lo)) hi = lo + 1;
    var step = Math.pow(10, Math.floor(Math.log10((hi - lo) / n)));
    var err = (hi - lo) / n / step;
    if (err >= 7.5) step *= 10; else if (err >= 3.5) step *= 5; else if (err >= 1.5) step *= 2;
    var out = [];
    for (var v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(+v.toPrecision(12));
    return out;
  }

  function legend(g, names, x, y) {
    var cx = x;
    names.forEach(function (name, i) {
      var color = COLORS[name] || PALETTE[i % PALETTE.length];
      el("rect", { x: cx, y: y - 9, width: 10, height: 10, fill: color }, g);
      var t = el("text", { x: cx + 14, y: y }, g, name);
      cx += 24 + name.length * 6.5;
    });
  }

  // Stacked bars: one per rank, parts stacked from the bottom.
  function drawRanks(container, rc) {
    var bars = rc.bars, parts = rc.parts;
    var used = parts.filter(function (_, i) { return bars.some(function (b) { return b.parts[i] > 0; }); });
    var W = 1180, H = 320, m = { l: 70, r: 10, t: 28, b: 40 };
    var s = svg(container, W, H);
    var maxT = Math.max.apply(null, bars.map(function (b) { return Math.max(b.finish, b.parts.reduce(function (a, c) { return a + c; }, 0)); }).concat([1]));
    var ticks = niceTicks(0, maxT, 5), top = ticks[ticks.length - 1] || maxT;
    if (top < maxT) top = maxT;
    var y = function (v) { return m.t + (H - m.t - m.b) * (1 - v / top); };
    var grid = el("g", { "class": "grid" }, s), axis = el("g", { "class": "axis" }, s);
    ticks.forEach(function (t) {
      el("line", { x1: m.l, x2: W - m.r, y1: y(t), y2: y(t) }, grid);
      el("text", { x: m.l - 6, y: y(t) + 4, "text-anchor": "end" }, axis, fmtNs(t));
    });
    el("line", { x1: m.l, x2: W - m.r, y1: y(0), y2: y(0) }, axis);
    var bw = (W - m.l - m.r) / bars.length;
    var labelEvery = Math.ceil(bars.length / 40);
    bars.forEach(function (b, i) {
      var x = m.l + i * bw + bw * 0.1, acc = 0;
      var g = el("g", { "class": "bar" }, s);
      b.parts.forEach(function (v, j) {
        if (v <= 0) return;
        var r = el("rect", { x: x, width: Math.max(bw * 0.8, 1), y: y(acc + v), height: Math.max(y(acc) - y(acc + v), 0.5), fill: COLORS[parts[j]] }, g);
        tip(r, "rank " + b.rank + ": " + parts[j] + " " + withCommas(v) + " ns");
        acc += v;
      });
      tip(g, "rank " + b.rank + ": finishes at " + withCommas(b.finish) + " ns");
      if (i % labelEvery === 0) el("text", { x: x + bw * 0.4, y: H - m.b + 14, "text-anchor": "middle" }, axis, String(b.rank));
    });
    el("text", { x: m.l + (W - m.l - m.r) / 2, y: H - 6, "text-anchor": "middle" }, axis, rc.large ? "rank (slowest first)" : "rank");
    legend(el("g", {}, s), used.length ? used : ["other"], m.l, 16);
    return bars.length;
  }

  function drawHistogram(container, h) {
    var W = 1180, H = 240, m = { l: 70, r: 10, t: 14, b: 40 };
    var s = svg(container, W, H);
    var maxC = Math.max.apply(null, h.counts.concat([1]));
    var ticks = niceTicks(0, maxC, 4), top = Math.max(ticks[ticks.length - 1], maxC);
    var y = function (v) { return m.t + (H - m.t - m.b) * (1 - v / top); };
    var grid = el("g", { "class": "grid" }, s), axis = el("g", { "class": "axis" }, s);
    ticks.forEach(function (t) {
      el("line", { x1: m.l, x2: W - m.r, y1: y(t), y2: y(t) }, grid);
      el("text", { x: m.l - 6, y: y(t) + 4, "text-anchor": "end" }, axis, String(t));
    });
    var bw = (W - m.l - m.r) / h.counts.length;
    h.counts.forEach(function (c, i) {
      var lo = h.lo + i * h.width;
      var r = el("rect", { x: m.l + i * bw + 1, width: Math.max(bw - 2, 1), y: y(c), height: y(0) - y(c), fill: "#4e79a7" }, s);
      tip(r, c + " ranks finish in [" + fmtNs(lo) + ", " + fmtNs(lo + h.width) + ")");
      if (i % 5 === 0) el("text", { x: m.l + i * bw, y: H - m.b + 14, "text-anchor": "middle" }, axis, fmtNs(lo));
    });
    el("line", { x1: m.l, x2: W - m.r, y1: y(0), y2: y(0) }, axis);
    el("text", { x: m.l + (W - m.l - m.r) / 2, y: H - 6, "text-anchor": "middle" }, axis, "finishing time (ranks per bin)");
    return h.counts.length;
  }

  // A 100% bar of the shares, with a legend giving ns and percent.
  function drawShares(container, shares) {
    var total = shares.reduce(function (a, s) { return a + Math.max(s.ns, 0); }, 0);
    var W = 1180, H = 74, m = 10;
    var s = svg(container, W, H);
    var x = m, n = 0;
    shares.forEach(function (p) {
      if (p.ns <= 0 || total <= 0) return;
      var w = (W - 2 * m) * p.ns / total;
      var r = el("rect", { x: x, y: 6, width: Math.max(w, 0.5), height: 26, fill: COLORS[p.name] || "#999" }, s);
      tip(r, p.name + ": " + withCommas(p.ns) + " ns (" + (100 * p.ns / total).toFixed(1) + "%)");
      if (w > 60) el("text", { x: x + w / 2, y: 23, "text-anchor": "middle", "class": "inbar" }, s, (100 * p.ns / total).toFixed(1) + "%");
      x += w; n++;
    });
    if (total <= 0) el("rect", { x: m, y: 6, width: W - 2 * m, height: 26, fill: "#eceff1" }, s);
    var g = el("g", {}, s), cx = m;
    shares.forEach(function (p) {
      var label = p.name + " " + fmtNs(p.ns) + (total > 0 ? " (" + (100 * p.ns / total).toFixed(1) + "%)" : "");
      el("rect", { x: cx, y: 46, width: 10, height: 10, fill: COLORS[p.name] || "#999" }, g);
      el("text", { x: cx + 14, y: 55 }, g, label);
      cx += 28 + label.length * 6.2;
    });
    return Math.max(n, 1);
  }

  // A line chart of one sweep plot: y against x, a line per series.
  function drawSweep(container, sw, plot) {
    var W = 580, H = 340, m = { l: 70, r: 14, t: 14, b: 44 };
    var legendH = 14 * Math.min(plot.series.length, 12);
    H += legendH;
    var s = svg(container, W, H);
    var pH = H - legendH;
    var xs = [], ys = [];
    plot.series.forEach(function (se) { se.pts.forEach(function (p) { xs.push(p[0]); ys.push(p[1]); }); });
    var fx = plot.logx ? function (v) { return Math.log10(v); } : function (v) { return v; };
    var x0 = fx(Math.min.apply(null, xs)), x1 = fx(Math.max.apply(null, xs));
    if (x1 <= x0) { x1 = x0 + 1; }
    var yt = niceTicks(Math.min(0, Math.min.apply(null, ys)), Math.max.apply(null, ys), 5);
    var y0 = yt[0], y1 = Math.max(yt[yt.length - 1], Math.max.apply(null, ys));
    if (y1 <= y0) y1 = y0 + 1;
    var X = function (v) { return m.l + (W - m.l - m.r) * (fx(v) - x0) / (x1 - x0); };
    var Y = function (v) { return m.t + (pH - m.t - m.b) * (1 - (v - y0) / (y1 - y0)); };
    var grid = el("g", { "class": "grid" }, s), axis = el("g", { "class": "axis" }, s);
    yt.forEach(function (t) {
      el("line", { x1: m.l, x2: W - m.r, y1: Y(t), y2: Y(t) }, grid);
      el("text", { x: m.l - 6, y: Y(t) + 4, "text-anchor": "end" }, axis, fmtNum(t));
    });
    var xt;
    if (plot.logx) {
      xt = [];
      for (var e = Math.floor(x0); e <= Math.ceil(x1); e++) {
        [1, 2, 5].forEach(function (k) { var v = k * Math.pow(10, e); if (fx(v) >= x0 - 1e-9 && fx(v) <= x1 + 1e-9) xt.push(v); });
      }
    } else {
      xt = niceTicks(x0, x1, 6);
    }
    xt.forEach(function (t) {
      el("line", { x1: X(t), x2: X(t), y1: m.t, y2: pH - m.b }, grid);
      el("text", { x: X(t), y: pH - m.b + 14, "text-anchor": "middle" }, axis, fmtNum(t));
    });
    el("line", { x1: m.l, x2: W - m.r, y1: pH - m.b, y2: pH - m.b }, axis);
    el("line", { x1: m.l, x2: m.l, y1: m.t, y2: pH - m.b }, axis);
    el("text", { x: m.l + (W - m.l - m.r) / 2, y: pH - m.b + 32, "text-anchor": "middle" }, axis, plot.x + (plot.logx ? " (log scale)" : ""));
    el("text", { x: 14, y: m.t + (pH - m.t - m.b) / 2, "text-anchor": "middle", transform: "rotate(-90 14 " + (m.t + (pH - m.t - m.b) / 2) + ")" }, axis, sw.y);
    var n = 0;
    plot.series.forEach(function (se, i) {
      var color = PALETTE[i % PALETTE.length];
      var d = se.pts.map(function (p, j) { return (j ? "L" : "M") + X(p[0]).toFixed(1) + "," + Y(p[1]).toFixed(1); }).join("");
      el("path", { d: d, fill: "none", stroke: color, "stroke-width": 1.8 }, s);
      se.pts.forEach(function (p) {
        var c = el("circle", { cx: X(p[0]), cy: Y(p[1]), r: 3, fill: color }, s);
        tip(c, se.name + "\n" + plot.x + "=" + p[0] + ", " + sw.y + "=" + p[1]);
        n++;
      });
      if (i < 12) {
        var ly = pH + 4 + 14 * i;
        el("rect", { x: m.l, y: ly, width: 12, height: 3, fill: color }, s);
        el("text", { x: m.l + 18, y: ly + 5 }, s, se.name);
      }
    });
    return n;
  }

  // The timeline: a canvas with one row per track, zoomed by the wheel
  // and the buttons, panned by dragging.
  function drawTimeline(container, tl) {
    var canvas = document.createElement("canvas");
    container.appendChild(canvas);
    var dpr = window.devicePixelRatio || 1;
    var labelW = 150, rowH = 22, axisH = 24;
    var W = Math.max(container.clientWidth || 1180, 400);
    var H = axisH + rowH * tl.tracks.length + 6;
    canvas.width = W * dpr; canvas.height = H * dpr;
    canvas.style.height = H + "px";
    var ctx = canvas.getContext("2d");
    ctx.scale(dpr, dpr);
    var full0 = tl.start, full1 = tl.end;
    var v0 = full0, v1 = full1;
    var n = tl.ev.length / 5;
    var cats = {}, catN = 0;
    function catColor(ci) {
      var name = tl.names[ci];
      if (COLORS[name]) return COLORS[name];
      if (!(ci in cats)) cats[ci] = PALETTE[(catN++) % PALETTE.length];
      return cats[ci];
    }
    var rangeLabel = container.parentNode.querySelector(".tl-range");
    function X(t) { return labelW + (W - labelW - 8) * (t - v0) / (v1 - v0); }
    function T(x) { return v0 + (x - labelW) * (v1 - v0) / (W - labelW - 8); }
    function draw() {
      ctx.clearRect(0, 0, W, H);
      ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, W, H);
      ctx.font = "11px system-ui, sans-serif";
      var ticks = niceTicks(v0, v1, 8);
      ctx.strokeStyle = "#eceff1"; ctx.fillStyle = "#5b6670"; ctx.textAlign = "center";
      ticks.forEach(function (t) {
        var x = X(t);
        if (x < labelW) return;
        ctx.beginPath(); ctx.moveTo(x, axisH - 4); ctx.lineTo(x, H); ctx.stroke();
        ctx.fillText(fmtNs(t), x, 14);
      });
      ctx.textAlign = "left";
      tl.tracks.forEach(function (name, i) {
        var y = axisH + i * rowH;
        if (i % 2) { ctx.fillStyle = "#f7f9fa"; ctx.fillRect(labelW, y, W - labelW, rowH); }
        ctx.fillStyle = "#1d2329";
        ctx.fillText(name.length > 24 ? name.slice(0, 23) + "…" : name, 4, y + 15);
      });
      ctx.save();
      ctx.beginPath(); ctx.rect(labelW, axisH, W - labelW, H - axisH); ctx.clip();
      var drawn = 0, lastX = [], lastC = [];
      for (var i = 0; i < n; i++) {
        var k = i * 5, t0 = tl.ev[k + 1], t1 = t0 + tl.ev[k + 2];
        if (t1 < v0 || t0 > v1) continue;
        var tr = tl.ev[k], x0 = X(t0), x1 = Math.max(X(t1), x0 + 0.5);
        var color = catColor(tl.ev[k + 4]);
        // Ops under half a pixel apart on one track merge into one rect.
        if (lastX[tr] !== undefined && x0 - lastX[tr] < 0.5 && lastC[tr] === color && x1 <= lastX[tr] + 0.5) continue;
        ctx.fillStyle = color;
        ctx.fillRect(x0, axisH + tr * rowH + 3, x1 - x0, rowH - 6);
        if (x1 - x0 > 40) {
          ctx.fillStyle = "#fff";
          ctx.fillText(tl.names[tl.ev[k + 3]].slice(0, Math.floor((x1 - x0) / 7)), x0 + 3, axisH + tr * rowH + 15);
        }
        lastX[tr] = x1; lastC[tr] = color;
        drawn++;
      }
      ctx.strokeStyle = "rgba(29,35,41,0.55)"; ctx.lineWidth = 1;
      for (var f = 0; f < tl.flows.length; f += 4) {
        var a = tl.flows[f + 1], b = tl.flows[f + 3];
        if (Math.max(a, b) < v0 || Math.min(a, b) > v1) continue;
        var ya = axisH + tl.flows[f] * rowH + rowH / 2, yb = axisH + tl.flows[f + 2] * rowH + rowH / 2;
        ctx.beginPath(); ctx.moveTo(X(a), ya); ctx.lineTo(X(b), yb); ctx.stroke();
        ctx.beginPath(); ctx.arc(X(b), yb, 2.5, 0, 2 * Math.PI); ctx.fillStyle = "rgba(29,35,41,0.7)"; ctx.fill();
      }
      ctx.restore();
      container.setAttribute("data-drawn", String(drawn));
      if (rangeLabel) rangeLabel.textContent = fmtNs(v0) + " – " + fmtNs(v1);
      return drawn;
    }
    function zoom(factor, at) {
      var span = (v1 - v0) * factor, fullSpan = full1 - full0;
      span = Math.min(Math.max(span, 1), fullSpan * 1.05);
      var frac = (at - v0) / (v1 - v0);
      v0 = at - frac * span; v1 = v0 + span;
      clampView(); draw();
    }
    function clampView() {
      var span = v1 - v0, pad = (full1 - full0) * 0.025;
      if (v0 < full0 - pad) { v0 = full0 - pad; v1 = v0 + span; }
      if (v1 > full1 + pad) { v1 = full1 + pad; v0 = v1 - span; }
    }
    canvas.addEventListener("wheel", function (e) {
      e.preventDefault();
      var r = canvas.getBoundingClientRect();
      zoom(e.deltaY < 0 ? 0.8 : 1.25, T(e.clientX - r.left));
    }, { passive: false });
    var drag = null;
    canvas.addEventListener("mousedown", function (e) { drag = { x: e.clientX, v0: v0, v1: v1 }; canvas.classList.add("dragging"); });
    window.addEventListener("mouseup", function () { drag = null; canvas.classList.remove("dragging"); });
    var tipBox = document.getElementById("tooltip");
    canvas.addEventListener("mousemove", function (e) {
      var r = canvas.getBoundingClientRect();
      if (drag) {
        var dt = (e.clientX - drag.x) * (drag.v1 - drag.v0) / (W - labelW - 8);
        v0 = drag.v0 - dt; v1 = drag.v1 - dt; clampView(); draw();
        return;
      }
      var x = e.clientX - r.left, y = e.clientY - r.top;
      var tr = Math.floor((y - axisH) / rowH), t = T(x), tol = 3 * (v1 - v0) / (W - labelW);
      var hit = -1;
      if (tr >= 0 && tr < tl.tracks.length && x >= labelW) {
        for (var i = 0; i < n; i++) {
          var k = i * 5;
          if (tl.ev[k] === tr && tl.ev[k + 1] - tol <= t && t <= tl.ev[k + 1] + tl.ev[k + 2] + tol) { hit = k; break; }
        }
      }
      if (hit < 0 || !tipBox) { if (tipBox) tipBox.hidden = true; return; }
      tipBox.textContent = tl.names[tl.ev[hit + 3]] + " (" + tl.names[tl.ev[hit + 4]] + ")\n" + tl.tracks[tl.ev[hit]] +
        "\nstart " + withCommas(tl.ev[hit + 1]) + " ns, duration " + withCommas(tl.ev[hit + 2]) + " ns";
      tipBox.style.left = (e.clientX + 12) + "px"; tipBox.style.top = (e.clientY + 12) + "px";
      tipBox.hidden = false;
    });
    canvas.addEventListener("mouseleave", function () { if (tipBox) tipBox.hidden = true; });
    var buttons = container.parentNode.querySelectorAll("button[data-zoom]");
    Array.prototype.forEach.call(buttons, function (b) {
      b.addEventListener("click", function () {
        var mid = (v0 + v1) / 2, kind = b.getAttribute("data-zoom");
        if (kind === "in") zoom(0.5, mid);
        else if (kind === "out") zoom(2, mid);
        else { v0 = full0; v1 = full1; draw(); }
      });
    });
    return draw();
  }

  function run() {
    var data = JSON.parse(document.getElementById("gopsim-data").textContent || "{}");
    var drawn = 0;
    var charts = document.querySelectorAll("[data-chart]");
    Array.prototype.forEach.call(charts, function (c) {
      var kind = c.getAttribute("data-chart"), n = 0;
      try {
        switch (kind) {
          case "ranks": if (data.ranks) n = drawRanks(c, data.ranks); break;
          case "histogram": if (data.ranks && data.ranks.hist) n = drawHistogram(c, data.ranks.hist); break;
          case "totals": if (data.totals) n = drawShares(c, data.totals); break;
          case "critical": if (data.critical) n = drawShares(c, data.critical); break;
          case "timeline": if (data.timeline) n = drawTimeline(c, data.timeline); break;
          case "sweep":
            var sw = data.sweeps[+c.getAttribute("data-sweep")];
            n = drawSweep(c, sw, sw.plots[+c.getAttribute("data-plot")]);
            break;
          default: throw new Error("unknown chart " + kind);
        }
      } catch (e) {
        report("chart " + kind + ": " + (e && e.stack ? e.stack : e));
        return;
      }
      if (!(n > 0)) { report("chart " + kind + ": nothing drawn"); return; }
      c.setAttribute("data-chart-ok", String(n));
      drawn++;
    });
    document.body.setAttribute("data-charts", String(drawn));
    if (errors.length === 0) document.body.setAttribute("data-rendered", "ok");
  }
  try { run(); } catch (e) { report("report: " + (e && e.stack ? e.stack : e)); }
})();

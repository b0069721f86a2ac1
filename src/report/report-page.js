// The report page's script: reads the JSON embedded by render-report.ts and draws the charts with
// the inlined Chart.js. Runs in the browser, inlined verbatim (no build step, no imports, no network).
// Every chart is created in its own try/catch; the outcome lands in window.__reportReady for tests.
(function () {
  'use strict';

  var errors = [];
  var rendered = [];
  // where the page put things that tests (and curious readers) may want to check
  var layout = { percentileLabels: [], faultLabels: [], seriesOffsets: {} };

  var PALETTE = [
    '#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#b07aa1', '#76b7b2', '#edc948', '#9c755f', '#ff9da7', '#79706e',
    '#a0cbe8', '#ffbe7d', '#8cd17d', '#ff9d9a', '#d4a6c8', '#86bcb6', '#f1ce63', '#d7b5a6', '#fabfd2', '#bab0ac',
  ];
  var GROUP_DASHES = [[], [6, 3], [2, 2], [8, 3, 2, 3]];
  var LINE_WIDTH = 1.6;
  var FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';

  function color(index) {
    return PALETTE[index % PALETTE.length];
  }

  function alpha(hex, a) {
    var n = parseInt(hex.slice(1), 16);
    return 'rgba(' + ((n >> 16) & 255) + ',' + ((n >> 8) & 255) + ',' + (n & 255) + ',' + a + ')';
  }

  function formatNumber(x) {
    return Number(x).toLocaleString('en-US', { maximumFractionDigits: 3 });
  }

  /** As the report's text writes latencies (format.ts formatDuration below a minute): 303 ms, 1.81 s. */
  function formatLatency(ms) {
    var trim = function (x, digits) {
      return String(Number(x.toFixed(digits)));
    };
    if (ms < 1000) return trim(ms, ms < 10 ? 2 : ms < 100 ? 1 : 0) + ' ms';
    var s = ms / 1000;
    return trim(s, s < 10 ? 2 : 1) + ' s';
  }

  function toXY(points) {
    return points.map(function (p) {
      return { x: p[0], y: p[1] };
    });
  }

  // --- plugins ---------------------------------------------------------------------------------

  /**
   * One light grey band over the plot wherever at least one fault was active (overlapping faults
   * merge into one band instead of stacking into a dark one); which fault it was is in the fault
   * timeline below. A fault of the whole run gets no band (it would grey all of the plot): the
   * chart's caption names it.
   */
  function faultBandsPlugin(faults) {
    var spans = faults
      .filter(function (f) {
        return !f.wholeRun;
      })
      .map(function (f) {
        return [f.fromS, f.untilS];
      })
      .sort(function (a, b) {
        return a[0] - b[0];
      });
    var merged = [];
    spans.forEach(function (s) {
      var last = merged[merged.length - 1];
      if (last && s[0] <= last[1]) last[1] = Math.max(last[1], s[1]);
      else merged.push([s[0], s[1]]);
    });
    return {
      id: 'faultBands',
      beforeDatasetsDraw: function (chart) {
        if (merged.length === 0) return;
        var ctx = chart.ctx;
        var area = chart.chartArea;
        var x = chart.scales.x;
        ctx.save();
        ctx.beginPath();
        ctx.rect(area.left, area.top, area.right - area.left, area.bottom - area.top);
        ctx.clip();
        ctx.fillStyle = 'rgba(110,118,129,0.14)';
        merged.forEach(function (m) {
          var x0 = x.getPixelForValue(m[0]);
          var x1 = Math.max(x0 + 2, x.getPixelForValue(m[1]));
          ctx.fillRect(x0, area.top, x1 - x0, area.bottom - area.top);
        });
        ctx.restore();
      },
    };
  }

  /** "No data" in the middle of a chart whose datasets are all empty. */
  var noDataPlugin = {
    id: 'noData',
    afterDraw: function (chart) {
      var empty = chart.data.datasets.every(function (d) {
        return d.data.length === 0;
      });
      if (!empty) return;
      var area = chart.chartArea;
      var ctx = chart.ctx;
      ctx.save();
      ctx.fillStyle = '#656d76';
      ctx.font = 'italic 14px ' + FONT;
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      ctx.fillText('No data', (area.left + area.right) / 2, (area.top + area.bottom) / 2);
      ctx.restore();
    },
  };

  var LABEL_ROW = 16;

  /**
   * Vertical markers at the latency percentiles, their labels above the plot (in padding the
   * chart reserves for them) on a white box, never on the bars; a label that would run into an
   * earlier one goes one row up.
   */
  function percentileMarkersPlugin(markers) {
    return {
      id: 'percentileMarkers',
      afterDatasetsDraw: function (chart) {
        var ctx = chart.ctx;
        var area = chart.chartArea;
        var x = chart.scales.x;
        ctx.save();
        ctx.font = '600 11px ' + FONT;
        ctx.textBaseline = 'middle';
        var rowEnds = [];
        layout.percentileLabels = [];
        markers.forEach(function (m) {
          var px = Math.max(area.left, Math.min(area.right, x.getPixelForValue(Math.min(m.ms, x.max))));
          // a white line under the dashed one keeps it visible on the bars
          ctx.setLineDash([]);
          ctx.strokeStyle = 'rgba(255,255,255,0.9)';
          ctx.lineWidth = 4;
          ctx.beginPath();
          ctx.moveTo(px, area.top - 2);
          ctx.lineTo(px, area.bottom);
          ctx.stroke();
          ctx.strokeStyle = m.color;
          ctx.setLineDash([5, 3]);
          ctx.lineWidth = 1.5;
          ctx.beginPath();
          ctx.moveTo(px, area.top - 2);
          ctx.lineTo(px, area.bottom);
          ctx.stroke();
          var label = m.label + ' ' + formatLatency(m.ms);
          var w = ctx.measureText(label).width + 8;
          var left = Math.max(area.left, Math.min(area.right - w, px - w / 2));
          var row = 0;
          while (row < rowEnds.length && rowEnds[row] > left - 4) row++;
          rowEnds[row] = left + w;
          var top = area.top - 4 - (row + 1) * LABEL_ROW;
          ctx.setLineDash([]);
          ctx.fillStyle = '#ffffff';
          ctx.fillRect(left, top, w, LABEL_ROW - 2);
          ctx.strokeStyle = m.color;
          ctx.lineWidth = 1;
          ctx.strokeRect(left + 0.5, top + 0.5, w - 1, LABEL_ROW - 3);
          ctx.fillStyle = m.color;
          ctx.fillText(label, left + 4, top + (LABEL_ROW - 2) / 2);
          layout.percentileLabels.push({ text: label, color: m.color, x: left, y: top, w: w, h: LABEL_ROW - 2 });
        });
        ctx.restore();
      },
    };
  }

  // --- shared options --------------------------------------------------------------------------

  function timeAxis(endS) {
    return {
      type: 'linear',
      min: 0,
      max: endS > 0 ? endS : 1,
      title: { display: true, text: 'virtual time (s)' },
      ticks: { maxTicksLimit: 13, includeBounds: false, callback: formatNumber },
    };
  }

  function baseOptions(extra) {
    var options = {
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      normalized: true,
      interaction: { mode: 'nearest', axis: 'x', intersect: false },
      plugins: {
        legend: { position: 'bottom', labels: { boxWidth: 12, boxHeight: 2, font: { size: 11 } } },
        tooltip: { mode: 'nearest', intersect: false },
      },
    };
    return Object.assign(options, extra);
  }

  /**
   * Vertical pixel offsets for the series of a group: nodes that agree would draw the same line on
   * top of each other, so each node's line is moved a little (OFFSET_PX apart, closer when a group
   * has many nodes) and every colour stays visible side by side. Lines are only moved up, from the
   * true value: a line at the axis minimum moved down would be drawn under the x axis.
   */
  var OFFSET_PX = 2.5;
  function seriesOffsets(series) {
    var perGroup = {};
    var rank = series.map(function (s) {
      perGroup[s.group] = (perGroup[s.group] || 0) + 1;
      return perGroup[s.group] - 1;
    });
    return series.map(function (s, i) {
      var n = perGroup[s.group];
      var step = n > 1 ? Math.min(OFFSET_PX, 20 / (n - 1)) : 0;
      return -rank[i] * step;
    });
  }

  /** Draws each dataset shifted by its offset (the data, the axes and the tooltips keep true values). */
  function offsetsPlugin(offsets) {
    return {
      id: 'seriesOffsets',
      beforeDatasetDraw: function (chart, args) {
        chart.ctx.save();
        chart.ctx.translate(0, offsets[args.index] || 0);
      },
      afterDatasetDraw: function (chart) {
        chart.ctx.restore();
      },
    };
  }

  /**
   * A y axis' afterDataLimits: room above the highest point for `px` pixels (half a line's width
   * and the most a line is moved up), so a line at the maximum is drawn inside the plot, not on or
   * over its top edge. Chart.js sets the limits when the legend has its share of the height but
   * the time axis below the plot (ticks and title, about 60 px) not yet: X_AXIS_PX is taken off
   * for it. The ticks then round the top up.
   */
  var X_AXIS_PX = 80;
  function headroom(px) {
    return function (scale) {
      var range = scale.max - scale.min;
      var plot = scale.height - X_AXIS_PX;
      if (range > 0 && plot > 2 * px) scale.max += (range * px) / (plot - px);
    };
  }

  /** The pixels a chart of these offsets needs above its highest point. */
  function linesHeadroom(offsets) {
    var up = offsets.reduce(function (most, o) {
      return Math.max(most, -o);
    }, 0);
    return headroom(up + LINE_WIDTH / 2 + 1);
  }

  function stepDatasets(series, groups) {
    return series.map(function (s) {
      var c = color(s.color);
      return {
        label: s.label,
        data: toXY(s.points),
        stepped: true,
        borderColor: c,
        backgroundColor: c,
        borderWidth: LINE_WIDTH,
        borderDash: GROUP_DASHES[Math.max(0, groups.indexOf(s.group)) % GROUP_DASHES.length],
        pointRadius: 0,
        pointHoverRadius: 3,
        parsing: false,
      };
    });
  }

  // --- the charts ------------------------------------------------------------------------------

  function heightsChart(canvas, charts) {
    var offsets = (layout.seriesOffsets[canvas.id] = seriesOffsets(charts.heights));
    return new Chart(canvas, {
      type: 'line',
      data: { datasets: stepDatasets(charts.heights, charts.groups) },
      options: baseOptions({
        scales: {
          x: timeAxis(charts.endS),
          y: { beginAtZero: true, afterDataLimits: linesHeadroom(offsets), title: { display: true, text: 'block height' }, ticks: { precision: 0 } },
        },
      }),
      plugins: [faultBandsPlugin(charts.faults), offsetsPlugin(offsets), noDataPlugin],
    });
  }

  function throughputChart(canvas, charts) {
    var datasets = charts.throughput.map(function (t, i) {
      var c = color(i);
      return {
        label: 'group ' + t.group,
        data: toXY(t.points),
        stepped: true,
        borderColor: c,
        backgroundColor: alpha(c, 0.15),
        fill: charts.throughput.length === 1 ? 'origin' : false,
        borderWidth: LINE_WIDTH,
        pointRadius: 0,
        parsing: false,
      };
    });
    return new Chart(canvas, {
      type: 'line',
      data: { datasets: datasets },
      options: baseOptions({
        scales: { x: timeAxis(charts.endS), y: { beginAtZero: true, afterDataLimits: linesHeadroom([]), title: { display: true, text: 'committed tx/s' } } },
      }),
      plugins: [faultBandsPlugin(charts.faults), noDataPlugin],
    });
  }

  function latencyChart(canvas, charts) {
    var latency = charts.latency;
    var width = latency.binWidthMs;
    var bins = latency.bins;
    var data = bins.map(function (b) {
      return { x: b.fromMs + width / 2, y: b.count };
    });
    var markers = [
      { label: 'p50', ms: latency.p50Ms, color: '#1a7f37' },
      { label: 'p90', ms: latency.p90Ms, color: '#9a6700' },
      { label: 'p99', ms: latency.p99Ms, color: '#cf222e' },
    ].filter(function (m) {
      return m.ms !== null;
    });
    var min = bins.length > 0 ? bins[0].fromMs : 0;
    var max = bins.length > 0 ? bins[bins.length - 1].fromMs + width : 1;
    return new Chart(canvas, {
      type: 'bar',
      data: {
        datasets: [
          {
            label: 'transactions',
            data: data,
            backgroundColor: bins.map(function (b) {
              return b.overflow ? '#f0a3a4' : '#9dbbdb';
            }),
            barPercentage: 1,
            categoryPercentage: 1,
            borderWidth: 0,
            parsing: false,
          },
        ],
      },
      options: baseOptions({
        interaction: { mode: 'index', intersect: false },
        // room above the plot for the percentile labels, one row per marker at most
        layout: { padding: { top: 6 + LABEL_ROW * markers.length } },
        scales: {
          x: { type: 'linear', offset: false, min: min, max: max, title: { display: true, text: 'submit → commit latency (ms)' }, ticks: { callback: formatNumber } },
          y: { beginAtZero: true, title: { display: true, text: 'transactions' }, ticks: { precision: 0 } },
        },
        plugins: {
          legend: { display: false },
          tooltip: {
            callbacks: {
              title: function (items) {
                var b = bins[items[0].dataIndex];
                return b.overflow
                  ? '≥ ' + formatNumber(b.fromMs) + ' ms (slowest: ' + formatNumber(b.toMs) + ' ms)'
                  : formatNumber(b.fromMs) + '–' + formatNumber(b.toMs) + ' ms';
              },
            },
          },
        },
      }),
      plugins: [percentileMarkersPlugin(markers), noDataPlugin],
    });
  }

  function roundsChart(canvas, charts) {
    var kinds = {};
    charts.rounds.forEach(function (r) {
      kinds[r.kind] = true;
    });
    var title = kinds.view && kinds.term ? 'PBFT view / Raft term' : kinds.term ? 'Raft term' : 'PBFT view';
    var offsets = (layout.seriesOffsets[canvas.id] = seriesOffsets(charts.rounds));
    return new Chart(canvas, {
      type: 'line',
      data: { datasets: stepDatasets(charts.rounds, charts.groups) },
      options: baseOptions({
        scales: {
          x: timeAxis(charts.endS),
          y: { beginAtZero: true, afterDataLimits: linesHeadroom(offsets), title: { display: true, text: title }, ticks: { precision: 0 } },
        },
      }),
      plugins: [faultBandsPlugin(charts.faults), offsetsPlugin(offsets), noDataPlugin],
    });
  }

  function messagesChart(canvas, charts) {
    var m = charts.messages;
    function bars(label, values, c) {
      return { label: label, data: values, backgroundColor: c, borderWidth: 0 };
    }
    return new Chart(canvas, {
      type: 'bar',
      data: {
        labels: m.nodes,
        datasets: m.nodes.length === 0 ? [] : [bars('sent', m.sent, '#4e79a7'), bars('received', m.received, '#59a14f'), bars('dropped', m.dropped, '#e15759')],
      },
      options: baseOptions({
        interaction: { mode: 'index', intersect: false },
        scales: { y: { beginAtZero: true, title: { display: true, text: 'messages' }, ticks: { callback: formatNumber } } },
        plugins: { legend: { position: 'bottom', labels: { boxWidth: 12, boxHeight: 12, font: { size: 11 } } } },
      }),
      plugins: [noDataPlugin],
    });
  }

  /**
   * Fault timeline labels: inside the bar when it fits, else just right of it, else just left of
   * it, when that space is free in the bar's row; otherwise hidden (the bar's tooltip and the table
   * below still say what it was). Runs again when the page is resized.
   */
  function placeFaultLabels() {
    layout.faultLabels = [];
    var lanes = document.querySelectorAll('#faults .fault-lane');
    Array.prototype.forEach.call(lanes, function (lane) {
      var track = lane.querySelector('.lane-track');
      var trackWidth = track.clientWidth;
      var rows = {};
      Array.prototype.forEach.call(lane.querySelectorAll('.fault-bar'), function (bar) {
        var key = bar.style.top;
        (rows[key] = rows[key] || []).push(bar);
      });
      Object.keys(rows).forEach(function (key) {
        var bars = rows[key].sort(function (a, b) {
          return a.offsetLeft - b.offsetLeft;
        });
        var taken = 0; // right end of what is already drawn in this row
        bars.forEach(function (bar, i) {
          var label = bar.querySelector('.fault-label');
          var left = bar.offsetLeft;
          var right = left + bar.offsetWidth;
          var next = i + 1 < bars.length ? bars[i + 1].offsetLeft : trackWidth;
          label.classList.remove('outside');
          label.style.visibility = 'hidden';
          var w = label.offsetWidth;
          var place = null;
          if (w + 6 <= right - left) place = { at: 3, end: right, outside: false };
          else if (right + 3 + w <= Math.min(next - 3, trackWidth)) place = { at: right - left + 3, end: right + 3 + w, outside: true };
          else if (left - 3 - w >= taken + 3) place = { at: -3 - w, end: right, outside: true };
          if (place) {
            label.style.left = place.at + 'px';
            label.classList.toggle('outside', place.outside);
            label.style.visibility = 'visible';
            taken = Math.max(taken, place.end);
            layout.faultLabels.push(label.textContent);
          } else {
            taken = Math.max(taken, right);
          }
        });
      });
    });
  }

  // --- page ------------------------------------------------------------------------------------

  /**
   * The scroll cue of tables wider than their box: the frame gets more-left / more-right while
   * columns are hidden on that side (a fading edge there, and "scroll →" while more is to the
   * right); none when the table fits. Updated on scroll, and by the caller on resize.
   */
  function setUpScrollCues() {
    var frames = Array.prototype.slice.call(document.querySelectorAll('.scroll-frame'));
    function update(frame) {
      var box = frame.querySelector('.table-scroll');
      var hidden = box.scrollWidth - box.clientWidth;
      // a pixel of slack: scroll positions can be fractional at some zoom levels
      frame.classList.toggle('more-left', hidden > 1 && box.scrollLeft > 1);
      frame.classList.toggle('more-right', hidden > 1 && box.scrollLeft < hidden - 1);
    }
    frames.forEach(function (frame) {
      frame.querySelector('.table-scroll').addEventListener('scroll', function () {
        update(frame);
      }, { passive: true });
      update(frame);
    });
    return function () {
      frames.forEach(update);
    };
  }

  function setUpCopyButton() {
    var button = document.getElementById('copy-replay');
    var code = document.getElementById('replay-command');
    if (!button || !code) return;
    button.addEventListener('click', function () {
      var text = code.textContent || '';
      function selectIt() {
        var range = document.createRange();
        range.selectNodeContents(code);
        var selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
        button.textContent = 'Selected: press Ctrl+C';
      }
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(function () {
          button.textContent = 'Copied';
        }, selectIt);
      } else {
        selectIt();
      }
    });
  }

  function render() {
    var report;
    try {
      report = JSON.parse(document.getElementById('report-data').textContent);
    } catch (e) {
      errors.push('report data: ' + (e && e.message ? e.message : String(e)));
      return;
    }
    if (typeof Chart === 'undefined') {
      errors.push('Chart.js did not load');
      return;
    }
    Chart.defaults.font.family = FONT;
    Chart.defaults.color = '#1f2328';
    var builders = {
      'chart-heights': heightsChart,
      'chart-tps': throughputChart,
      'chart-latency': latencyChart,
      'chart-rounds': roundsChart,
      'chart-messages': messagesChart,
    };
    Object.keys(builders).forEach(function (id) {
      try {
        var canvas = document.getElementById(id);
        // a chart with nothing to show is a sentence in the page instead of a canvas
        if (!canvas) {
          if (!document.getElementById(id + '-note')) throw new Error('no canvas and no note');
          return;
        }
        builders[id](canvas, report.charts);
        rendered.push(id);
      } catch (e) {
        errors.push(id + ': ' + (e && e.message ? e.message : String(e)));
      }
    });
  }

  try {
    setUpCopyButton();
    render();
    placeFaultLabels();
    var updateScrollCues = setUpScrollCues();
    var pending = false;
    window.addEventListener('resize', function () {
      if (pending) return;
      pending = true;
      window.requestAnimationFrame(function () {
        pending = false;
        placeFaultLabels();
        updateScrollCues();
      });
    });
  } catch (e) {
    errors.push('page: ' + (e && e.message ? e.message : String(e)));
  }
  window.__reportLayout = layout;
  window.__reportReady = { charts: rendered.length, ids: rendered, errors: errors };
})();

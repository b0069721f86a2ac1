// The report page's script: reads the JSON embedded by render-report.ts and draws the charts with
// the inlined Chart.js. Runs in the browser, inlined verbatim (no build step, no imports, no network).
// Every chart is created in its own try/catch; the outcome lands in window.__reportReady for tests.
(function () {
  'use strict';

  var errors = [];
  var rendered = [];

  var PALETTE = [
    '#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#b07aa1', '#76b7b2', '#edc948', '#9c755f', '#ff9da7', '#79706e',
    '#a0cbe8', '#ffbe7d', '#8cd17d', '#ff9d9a', '#d4a6c8', '#86bcb6', '#f1ce63', '#d7b5a6', '#fabfd2', '#bab0ac',
  ];
  var GROUP_DASHES = [[], [6, 3], [2, 2], [8, 3, 2, 3]];
  var FAULT_COLORS = {
    crash: '#e15759',
    restart: '#e15759',
    pause: '#79706e',
    partition: '#b07aa1',
    partitionOneWay: '#b07aa1',
    isolate: '#b07aa1',
    clog: '#f28e2b',
    network: '#b6992d',
    link: '#b6992d',
    loss: '#b6992d',
    clockSkew: '#499894',
    byzantine: '#9c1f1f',
  };
  var FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';

  function color(index) {
    return PALETTE[index % PALETTE.length];
  }

  function faultColor(kind) {
    if (Object.prototype.hasOwnProperty.call(FAULT_COLORS, kind)) return FAULT_COLORS[kind];
    var hash = 0;
    for (var i = 0; i < kind.length; i++) hash = (hash * 31 + kind.charCodeAt(i)) >>> 0;
    return color(hash);
  }

  function alpha(hex, a) {
    var n = parseInt(hex.slice(1), 16);
    return 'rgba(' + ((n >> 16) & 255) + ',' + ((n >> 8) & 255) + ',' + (n & 255) + ',' + a + ')';
  }

  function formatNumber(x) {
    return Number(x).toLocaleString('en-US', { maximumFractionDigits: 3 });
  }

  function toXY(points) {
    return points.map(function (p) {
      return { x: p[0], y: p[1] };
    });
  }

  // --- plugins ---------------------------------------------------------------------------------

  /** Translucent boxes over the plot for every fault interval, labelled with kind and nodes. */
  function faultBandsPlugin(faults) {
    return {
      id: 'faultBands',
      beforeDatasetsDraw: function (chart) {
        if (faults.length === 0) return;
        var ctx = chart.ctx;
        var area = chart.chartArea;
        var x = chart.scales.x;
        ctx.save();
        ctx.beginPath();
        ctx.rect(area.left, area.top, area.right - area.left, area.bottom - area.top);
        ctx.clip();
        ctx.font = '11px ' + FONT;
        ctx.textBaseline = 'top';
        // labels go on the first row where they don't run into an earlier label or band
        var rowEnds = [];
        faults.forEach(function (f) {
          var c = faultColor(f.kind);
          var x0 = x.getPixelForValue(f.fromS);
          var x1 = Math.max(x0 + 2, x.getPixelForValue(f.untilS));
          ctx.fillStyle = alpha(c, 0.13);
          ctx.fillRect(x0, area.top, x1 - x0, area.bottom - area.top);
          ctx.strokeStyle = alpha(c, 0.6);
          ctx.lineWidth = 1;
          ctx.setLineDash([4, 3]);
          ctx.beginPath();
          ctx.moveTo(x0 + 0.5, area.top);
          ctx.lineTo(x0 + 0.5, area.bottom);
          if (!f.open) {
            ctx.moveTo(x1 - 0.5, area.top);
            ctx.lineTo(x1 - 0.5, area.bottom);
          }
          ctx.stroke();
          ctx.setLineDash([]);
          var text = f.label.length > 40 ? f.label.slice(0, 39) + '…' : f.label;
          var right = Math.max(x1, x0 + 4 + ctx.measureText(text).width + 8);
          var row = 0;
          while (row < rowEnds.length && rowEnds[row] > x0) row++;
          rowEnds[row] = right;
          ctx.fillStyle = c;
          ctx.fillText(text, x0 + 4, area.top + 4 + row * 14);
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

  /** Vertical markers at the latency percentiles. */
  function percentileMarkersPlugin(markers) {
    return {
      id: 'percentileMarkers',
      afterDatasetsDraw: function (chart) {
        var ctx = chart.ctx;
        var area = chart.chartArea;
        var x = chart.scales.x;
        ctx.save();
        ctx.font = '11px ' + FONT;
        ctx.textBaseline = 'top';
        markers.forEach(function (m, i) {
          var px = x.getPixelForValue(Math.min(m.ms, x.max));
          if (px < area.left || px > area.right) return;
          ctx.strokeStyle = m.color;
          ctx.setLineDash([5, 3]);
          ctx.lineWidth = 1.5;
          ctx.beginPath();
          ctx.moveTo(px, area.top);
          ctx.lineTo(px, area.bottom);
          ctx.stroke();
          ctx.fillStyle = m.color;
          var label = m.label + ' ' + formatNumber(m.ms) + ' ms';
          var width = ctx.measureText(label).width;
          var tx = px + 4 + width > area.right ? px - 4 - width : px + 4;
          ctx.fillText(label, tx, area.top + 4 + i * 14);
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

  function stepDatasets(series, groups) {
    return series.map(function (s) {
      var c = color(s.color);
      return {
        label: s.label,
        data: toXY(s.points),
        stepped: true,
        borderColor: c,
        backgroundColor: c,
        borderWidth: 1.6,
        borderDash: GROUP_DASHES[Math.max(0, groups.indexOf(s.group)) % GROUP_DASHES.length],
        pointRadius: 0,
        pointHoverRadius: 3,
        parsing: false,
      };
    });
  }

  // --- the charts ------------------------------------------------------------------------------

  function heightsChart(canvas, charts) {
    return new Chart(canvas, {
      type: 'line',
      data: { datasets: stepDatasets(charts.heights, charts.groups) },
      options: baseOptions({
        scales: { x: timeAxis(charts.endS), y: { beginAtZero: true, title: { display: true, text: 'block height' }, ticks: { precision: 0 } } },
      }),
      plugins: [faultBandsPlugin(charts.faults), noDataPlugin],
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
        borderWidth: 1.6,
        pointRadius: 0,
        parsing: false,
      };
    });
    return new Chart(canvas, {
      type: 'line',
      data: { datasets: datasets },
      options: baseOptions({
        scales: { x: timeAxis(charts.endS), y: { beginAtZero: true, title: { display: true, text: 'committed tx/s' } } },
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
              return b.overflow ? '#e15759' : '#4e79a7';
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
    return new Chart(canvas, {
      type: 'line',
      data: { datasets: stepDatasets(charts.rounds, charts.groups) },
      options: baseOptions({
        scales: { x: timeAxis(charts.endS), y: { beginAtZero: true, title: { display: true, text: title }, ticks: { precision: 0 } } },
      }),
      plugins: [faultBandsPlugin(charts.faults), noDataPlugin],
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

  function faultsChart(canvas, charts) {
    var faults = charts.faults;
    return new Chart(canvas, {
      type: 'bar',
      data: {
        labels: faults.map(function (f) {
          return f.label;
        }),
        datasets:
          faults.length === 0
            ? []
            : [
                {
                  label: 'fault',
                  data: faults.map(function (f) {
                    return [f.fromS, f.untilS];
                  }),
                  backgroundColor: faults.map(function (f) {
                    return alpha(faultColor(f.kind), 0.75);
                  }),
                  borderColor: faults.map(function (f) {
                    return faultColor(f.kind);
                  }),
                  borderWidth: 1,
                  borderSkipped: false,
                  minBarLength: 3,
                  barPercentage: 0.7,
                },
              ],
      },
      options: baseOptions({
        indexAxis: 'y',
        interaction: { mode: 'nearest', axis: 'y', intersect: false },
        scales: { x: timeAxis(charts.endS), y: { ticks: { font: { size: 11 } } } },
        plugins: {
          legend: { display: false },
          tooltip: {
            callbacks: {
              label: function (item) {
                var f = faults[item.dataIndex];
                return f.fromS + ' s → ' + (f.open ? 'end' : f.untilS + ' s') + ': ' + f.description;
              },
            },
          },
        },
      }),
      plugins: [noDataPlugin],
    });
  }

  // --- page ------------------------------------------------------------------------------------

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
      'chart-faults': faultsChart,
    };
    Object.keys(builders).forEach(function (id) {
      try {
        var canvas = document.getElementById(id);
        if (!canvas) throw new Error('no canvas');
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
  } catch (e) {
    errors.push('page: ' + (e && e.message ? e.message : String(e)));
  }
  window.__reportReady = { charts: rendered.length, ids: rendered, errors: errors };
})();

/* archpool HTML report: draws the page from the JSON in #archpool-report. Data is only ever inserted as text
   (textContent / setAttribute), never as markup. */
(function () {
  'use strict';

  var errors = [];
  function noteError(text) {
    errors.push(String(text));
    document.body.setAttribute('data-errors', errors.join('\n'));
    var box = document.getElementById('errors');
    if (box) {
      box.hidden = false;
      box.textContent = 'This page hit a script error, so parts of it may be missing:\n' + errors.join('\n');
    }
  }
  window.onerror = function (message, source, line) {
    noteError(message + (line ? ' (line ' + line + ')' : ''));
    return false;
  };
  window.addEventListener('unhandledrejection', function (e) { noteError('Unhandled rejection: ' + e.reason); });

  var SVG = 'http://www.w3.org/2000/svg';
  var OUTCOMES = ['succeeded', 'failed', 'timed_out', 'cancelled', 'crashed', 'skipped'];
  var LABELS = { succeeded: 'succeeded', failed: 'failed', timed_out: 'timed out', cancelled: 'cancelled',
    crashed: 'crashed', skipped: 'skipped' };
  /* outcome sort order: problems first */
  var RANK = { failed: 0, crashed: 1, timed_out: 2, cancelled: 3, skipped: 4, succeeded: 5 };
  var collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

  /* element helpers: children may be nodes or strings (always text nodes) */
  function append(node, children) {
    (Array.isArray(children) ? children : [children]).forEach(function (c) {
      if (c === null || c === undefined || c === false) return;
      node.appendChild(typeof c === 'object' ? c : document.createTextNode(String(c)));
    });
    return node;
  }
  function h(tag, attrs, children) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    return append(e, children === undefined ? [] : children);
  }
  function s(tag, attrs) {
    var e = document.createElementNS(SVG, tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    return e;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }
  function oc(outcome) { return OUTCOMES.indexOf(outcome) >= 0 ? 'o-' + outcome : ''; }
  function label(outcome) { return LABELS[outcome] || String(outcome); }
  function badge(outcome) { return h('span', { 'class': 'badge ' + oc(outcome) }, label(outcome)); }

  function ms(v) {
    if (v === null || v === undefined || isNaN(v)) return '';
    if (v < 1000) return v + ' ms';
    if (v < 60000) return (v / 1000).toFixed(v < 10000 ? 2 : 1) + ' s';
    var t = Math.round(v / 1000), hr = Math.floor(t / 3600), mi = Math.floor(t % 3600 / 60), se = t % 60;
    return (hr ? hr + 'h ' : '') + mi + 'm ' + (se < 10 ? '0' : '') + se + 's';
  }
  function list(items) {
    return h('ul', { 'class': 'plain' }, items.map(function (i) { return h('li', {}, i); }));
  }
  function facts(rows) {
    var dl = h('dl', { 'class': 'facts' });
    rows.forEach(function (r) {
      if (r && r[1] !== null && r[1] !== undefined && r[1] !== '') append(dl, [h('dt', {}, r[0]), h('dd', {}, r[1])]);
    });
    return dl;
  }

  var R = JSON.parse(document.getElementById('archpool-report').textContent);
  /* schema 2 has gpuTargets; a schema 1 report had one resolution and its toolchain check */
  var TARGETS = R.gpuTargets || (R.resolution ? [Object.assign({ toolchainCheck: R.toolchainCheck }, R.resolution)] : []);
  /* with several targets a job has an entry per target, named id[platform] */
  function jname(j) { return TARGETS.length > 1 && j.target ? j.id + '[' + j.target.platform + ']' : j.id; }
  var jobs = (R.jobs || []).map(function (j, i) {
    var archs = [];
    (j.artifacts || []).forEach(function (a) {
      (a.archs || []).forEach(function (x) { if (archs.indexOf(x) < 0) archs.push(x); });
    });
    var phases = j.phases || [];
    var span = phases.reduce(function (t, p) { return t + (p.ms || 0); }, 0);
    if (!span && (j.attempts || 0) <= 1) span = j.totalMs || 0;
    return { j: j, i: i, archs: archs, span: span,
      noted: j.outcome !== 'succeeded' || (j.warnings || []).length > 0 || (j.attemptFailures || []).length > 0 ||
        (j.artifacts || []).some(function (a) { return a.problem; }) };
  });

  /* ---- summary ---- */
  function summary() {
    var sec = document.getElementById('summary');
    var counts = R.outcomes || {};
    var cards = h('div', { 'class': 'cards' }, [
      h('div', { 'class': 'card' }, [h('b', {}, String(jobs.length)), h('span', {}, 'jobs')])
    ]);
    OUTCOMES.forEach(function (o) {
      if (counts[o] || o === 'succeeded') {
        append(cards, h('div', { 'class': 'card ' + oc(o), 'data-outcome': o },
          [h('b', {}, String(counts[o] || 0)), h('span', {}, label(o))]));
      }
    });
    append(cards, [
      h('div', { 'class': 'card' }, [h('b', {}, ms(R.durationMs)), h('span', {}, 'duration')]),
      h('div', { 'class': 'card ' + (R.exitCode === 0 ? 'o-succeeded' : 'o-failed') },
        [h('b', {}, String(R.exitCode)), h('span', {}, 'exit code')])
    ]);

    var targetRows = [];
    TARGETS.forEach(function (res) {
      var target = res.platform ? [res.platform.toUpperCase() + ' ', h('code', {}, (res.archs || []).join(', '))] : null;
      var from = res.source ? res.source + (res.detail ? ' (' + res.detail + ')' : '') : null;
      var devices = (res.devices || []).map(function (d) {
        return '#' + d.index + ' ' + (d.name || 'GPU') + ': ' + (d.targetId || d.arch) + (d.uuid ? ' ' + d.uuid : '');
      });
      var tc = res.toolchainCheck;
      var toolchain = null;
      if (tc) {
        var skipped = (tc.probes || []).filter(function (p) { return p.status === 'skipped'; });
        toolchain = (tc.refused || []).length ? [tc.compiler + ' refused:', list(tc.refused)]
          : skipped.length ? 'skipped: ' + (skipped[0].message || tc.compiler) : tc.compiler + ': all targets supported';
      }
      targetRows.push(['Target', target], ['Architectures from', from],
        ['Devices seen', devices.length ? list(devices) : null],
        ['Visibility', res.visibility ? res.visibility.applied : null],
        ['Resolution warnings', (res.warnings || []).length ? list(res.warnings) : null],
        ['Toolchain check', toolchain]);
    });
    var pool = R.pool || {};
    var shape = pool.mode ? pool.mode + ' mode, ' + pool.workers + ' worker' + (pool.workers === 1 ? '' : 's') +
      ', build parallelism ' + pool.buildParallelism + ', retries ' + pool.retries +
      (pool.keepGoing ? ', keep going' : ', stop on first failure') : null;
    var events = (pool.workerEvents || []).filter(function (e) { return e.event !== 'started'; }).map(function (e) {
      return e.worker + ' ' + String(e.event).replace(/_/g, ' ') + ' at ' + ms(e.atMs) +
        (e.cause ? ' [' + e.cause + ']' : '') + (e.reason ? ': ' + e.reason : '');
    });
    /* under Slurm: what the build saw of each node, the lost and avoided ones first */
    var nodes = (pool.nodes || []).slice().sort(function (a, b) {
      return (b.lost || b.avoided ? 1 : 0) - (a.lost || a.avoided ? 1 : 0);
    }).map(function (n) {
      return n.node + ': ' + n.workersStarted + ' worker' + (n.workersStarted === 1 ? '' : 's') + ' started, ' +
        n.workerDeaths + ' died, ' + n.failedStarts + ' failed to start' +
        (n.lost ? '; lost (Slurm says ' + n.slurmState + ')' : '') +
        (n.avoided ? '; no more workers started there: ' + n.avoided : '');
    });
    var started = R.startedAt ? new Date(R.startedAt) : null;
    append(clear(sec), [h('h2', { id: 'h-summary' }, 'Summary'), cards, h('div', { 'class': 'columns' }, [facts(
      targetRows), facts([
      ['Started', R.startedAt ? R.startedAt + (started && !isNaN(started) ? ' (' + started.toLocaleString() + ')' : '') : null],
      ['Pool', shape],
      ['Worker events', events.length ? list(events) : null],
      ['Nodes', nodes.length ? list(nodes) : null],
      ['Log directory', pool.logDir ? h('code', {}, pool.logDir) : null],
      ['Manifest', R.manifest ? h('code', {}, R.manifest) : null],
      ['archpool', (R.archpoolVersion || '?') + ', report schema ' + R.schemaVersion]
    ])])]);
  }

  /* ---- job table ---- */
  var COLS = [
    { k: 'id', t: 'Job', v: function (x) { return jname(x.j); } },
    { k: 'target', t: 'Target', v: function (x) { return x.j.target ? x.j.target.platform + ' ' + x.j.target.archs.join(';') : ''; } },
    { k: 'kind', t: 'Kind', v: function (x) { return x.j.kind || ''; } },
    { k: 'outcome', t: 'Outcome', n: 1, v: function (x) { return x.j.outcome in RANK ? RANK[x.j.outcome] : 9; } },
    { k: 'worker', t: 'Worker', v: function (x) { return x.j.worker || ''; } },
    { k: 'attempts', t: 'Tries', n: 1, v: function (x) { return x.j.attempts || 0; } },
    { k: 'queue', t: 'Queue', n: 1, ms: 1, v: function (x) { return x.j.queueWaitMs || 0; } },
    { k: 'configure', t: 'Configure', n: 1, ms: 1, v: function (x) { return x.j.configureMs || 0; } },
    { k: 'build', t: 'Build / command', n: 1, ms: 1,
      v: function (x) { return (x.j.buildMs || 0) + (x.j.commandMs || 0); } },
    { k: 'inspect', t: 'Inspect', n: 1, ms: 1, v: function (x) { return x.j.inspectMs || 0; } },
    { k: 'total', t: 'Total', n: 1, ms: 1, v: function (x) { return x.j.totalMs || 0; } },
    { k: 'archs', t: 'Archs found', v: function (x) { return x.archs.join(' '); } }
  ];
  var sort = { k: null, dir: 'ascending' };

  function cell(col, x) {
    var v = col.v(x);
    if (col.k === 'id') {
      return h('td', { 'class': 'id' }, x.noted ? h('a', { href: '#job-' + x.i }, jname(x.j)) : jname(x.j));
    }
    if (col.k === 'outcome') return h('td', {}, badge(x.j.outcome));
    if (col.k === 'archs') return h('td', { 'class': 'mono' }, x.archs.join(', '));
    if (col.ms) return h('td', { 'class': 'num' + (v ? '' : ' muted') }, v ? ms(v) : '\u2013');
    return h('td', { 'class': col.n ? 'num' : '' }, String(v));
  }

  function header() {
    var tr = h('tr');
    COLS.forEach(function (col) {
      var b = h('button', { type: 'button', 'data-sort': col.k, title: 'Sort by ' + col.t.toLowerCase() }, col.t);
      b.addEventListener('click', function () {
        var dir = sort.k === col.k ? (sort.dir === 'ascending' ? 'descending' : 'ascending')
          : (col.ms ? 'descending' : 'ascending');
        sortBy(col.k, dir, true);
      });
      append(tr, h('th', { scope: 'col', 'class': col.n ? 'num' : '', 'data-key': col.k, 'aria-sort': 'none' }, b));
    });
    append(clear(document.querySelector('#jobs thead')), tr);
  }

  /* A browser stays responsive with a few thousand rows, bars and details, not with 100,000: beyond these the
     page shows the first ones (in the table's order; the longest and every failure on the timeline) and says
     so. The embedded JSON always holds every job. */
  var MAX_ROWS = 2000, MAX_BARS = 5000, MAX_DETAILS = 2000;

  function capNote(id, text) {
    var p = document.getElementById(id);
    p.textContent = text || '';
    p.hidden = !text;
  }

  /* with several targets and no sort asked for, the rows come grouped by target, each group under a heading row */
  function rows(order, grouped) {
    var body = clear(document.querySelector('#jobs tbody'));
    var group = null;
    order.slice(0, MAX_ROWS).forEach(function (x) {
      var platform = x.j.target ? x.j.target.platform : '';
      if (grouped && platform !== group) {
        group = platform;
        var t = TARGETS.filter(function (g) { return g.platform === platform; })[0];
        var count = order.filter(function (y) { return (y.j.target ? y.j.target.platform : '') === platform; }).length;
        append(body, h('tr', { 'class': 'group' }, h('th', { scope: 'rowgroup', colspan: String(COLS.length) },
          (t ? t.platform.toUpperCase() + ' ' + (t.archs || []).join(', ') : 'no target') + ' \u2013 ' + count +
          ' job' + (count === 1 ? '' : 's'))));
      }
      append(body, h('tr', { 'data-index': String(x.i), 'class': oc(x.j.outcome) },
        COLS.map(function (col) { return cell(col, x); })));
    });
    capNote('jobs-cap', order.length > MAX_ROWS ? 'Showing the first ' + MAX_ROWS + ' of ' + order.length +
      ' jobs in this order; sort by a column to bring others up. Every job is in the JSON report.' : null);
  }

  function sortBy(key, dir, remember) {
    var col = COLS.filter(function (c) { return c.k === key; })[0];
    if (!col) return;
    dir = dir === 'descending' ? 'descending' : 'ascending';
    sort = { k: key, dir: dir };
    var sign = dir === 'descending' ? -1 : 1;
    var order = jobs.slice().sort(function (a, b) {
      var va = col.v(a), vb = col.v(b), c;
      if (col.n) c = va - vb;
      else if (va === '' || vb === '') c = (va === '' ? 1 : 0) - (vb === '' ? 1 : 0);
      else c = collator.compare(va, vb);
      return c ? sign * c : a.i - b.i;
    });
    document.querySelectorAll('#jobs th').forEach(function (th) {
      th.setAttribute('aria-sort', th.getAttribute('data-key') === key ? dir : 'none');
    });
    rows(order);
    if (remember) {
      try {
        history.replaceState(null, '', '#sort=' + key + ':' + (dir === 'descending' ? 'desc' : 'asc'));
      } catch (e) { /* some file:// contexts forbid it; the order still changes */ }
    }
  }

  /* #sort=total, #sort=total:asc, #sort=id:desc */
  function sortFromHash() {
    var m = /^#sort=([a-z]+)(?::(asc|desc))?$/.exec(location.hash);
    if (!m) return false;
    var col = COLS.filter(function (c) { return c.k === m[1]; })[0];
    if (!col) return false;
    sortBy(col.k, m[2] ? (m[2] === 'desc' ? 'descending' : 'ascending') : (col.ms ? 'descending' : 'ascending'));
    return true;
  }

  /* ---- timeline ---- */
  var STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 15e3, 3e4, 6e4, 12e4, 3e5, 6e5, 9e5, 18e5,
    36e5];
  function niceStep(raw) {
    for (var i = 0; i < STEPS.length; i++) if (STEPS[i] >= raw) return STEPS[i];
    return Math.ceil(raw / 36e5) * 36e5;
  }
  function tick(t, step, end) {
    if (t === 0) return '0';
    if (step < 1000) return Math.round(t) + ' ms';
    if (end < 12e4) return Math.round(t / 1000) + ' s';
    var sec = Math.round(t / 1000), hr = Math.floor(sec / 3600), mi = Math.floor(sec % 3600 / 60);
    sec %= 60;
    return (hr ? hr + ':' + (mi < 10 ? '0' : '') : '') + mi + ':' + (sec < 10 ? '0' : '') + sec;
  }

  function tooltip(x) {
    var j = x.j;
    return [jname(j), label(j.outcome) + (j.worker ? ' on ' + j.worker : '') +
      (j.attempts > 1 ? ', attempt ' + j.attempts : ''),
      'start ' + ms(j.startMs) + ', queued ' + ms(j.queueWaitMs || 0) + ', total ' + ms(j.totalMs || 0),
      (j.phases || []).map(function (p) {
        return p.name + ' ' + ms(p.ms) + (p.exitCode !== undefined && p.exitCode !== null && p.exitCode !== 0
          ? ' (exit ' + p.exitCode + ')' : '');
      }).join(', ')].filter(Boolean).join('\n');
  }

  var drawnWidth = 0;
  function timeline() {
    var host = document.getElementById('timeline');
    var placed = jobs.filter(function (x) { return x.j.worker; });
    var events = ((R.pool || {}).workerEvents || []).filter(function (e) {
      return e.worker && e.event !== 'started';
    });
    var workers = [];
    placed.forEach(function (x) { if (workers.indexOf(x.j.worker) < 0) workers.push(x.j.worker); });
    events.forEach(function (e) { if (workers.indexOf(e.worker) < 0) workers.push(e.worker); });
    workers.sort(collator.compare);
    clear(host);
    drawnWidth = host.clientWidth;
    if (!workers.length) {
      append(host, h('p', { 'class': 'muted' }, 'No job reached a worker.'));
      host.setAttribute('data-rendered', '0');
      return;
    }
    var end = 1;
    placed.forEach(function (x) { end = Math.max(end, (x.j.startMs || 0) + x.span); });
    events.forEach(function (e) { end = Math.max(end, e.atMs || 0); });
    var W = Math.max(drawnWidth || 0, 640), L = 64, RP = 18, TOP = 4, ROW = 26, BAR = 16, AX = 22;
    var plot = W - L - RP, H = TOP + workers.length * ROW + AX;
    var X = function (t) { return L + t / end * plot; };
    var svg = s('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, role: 'img',
      'aria-label': 'Jobs on workers over time' });
    var step = niceStep(end / Math.max(2, Math.floor(plot / 90)));
    for (var t = 0; t <= end + 1e-9; t += step) {
      svg.appendChild(s('line', { 'class': 'grid', x1: X(t), x2: X(t), y1: TOP, y2: H - AX + 4 }));
      var tx = s('text', { x: X(t), y: H - 6, 'text-anchor': t === 0 ? 'start' : 'middle' });
      tx.textContent = tick(t, step, end);
      svg.appendChild(tx);
    }
    workers.forEach(function (w, r) {
      var y = TOP + r * ROW;
      svg.appendChild(s('rect', { 'class': 'lane', x: L, y: y + 2, width: plot, height: ROW - 4, rx: 3 }));
      var lt = s('text', { x: L - 8, y: y + ROW / 2 + 4, 'text-anchor': 'end' });
      lt.textContent = w;
      svg.appendChild(lt);
    });
    var bars = 0;
    var drawn = placed;
    if (placed.length > MAX_BARS) {
      drawn = placed.slice().sort(function (a, b) {
        return (a.j.outcome === 'succeeded') - (b.j.outcome === 'succeeded') || b.span - a.span || a.i - b.i;
      }).slice(0, MAX_BARS);
    }
    capNote('timeline-cap', drawn.length < placed.length ? 'Drawn: ' + drawn.length + ' of ' + placed.length +
      ' jobs, every one that did not succeed and then the longest.' : null);
    drawn.forEach(function (x) {
      var y = TOP + workers.indexOf(x.j.worker) * ROW + (ROW - BAR) / 2;
      var g = s('g', { 'class': 'bar ' + oc(x.j.outcome), 'data-index': String(x.i) });
      var title = s('title');
      title.textContent = tooltip(x);
      g.appendChild(title);
      var t0 = x.j.startMs || 0;
      var segs = (x.j.phases || []).filter(function (p) { return p.ms > 0; });
      if (!segs.length) segs = [{ name: 'run', ms: x.span }];
      segs.forEach(function (p) {
        g.appendChild(s('rect', { 'class': 'p-' + String(p.name).replace(/[^a-z]/g, ''), x: X(t0), y: y,
          width: Math.max(1.5, p.ms / end * plot), height: BAR }));
        t0 += p.ms;
      });
      var node = g;
      if (x.noted) {
        node = s('a', { href: '#job-' + x.i });
        node.appendChild(g);
      }
      svg.appendChild(node);
      bars++;
    });
    events.forEach(function (e) {
      var r = workers.indexOf(e.worker), y = TOP + r * ROW;
      var line = s('line', { 'class': 'ev ' + (e.event === 'died' ? 'o-failed' : e.event === 'recycled'
        ? 'o-cancelled' : 'o-crashed'), x1: X(e.atMs || 0), x2: X(e.atMs || 0), y1: y + 1, y2: y + ROW - 1 });
      var tt = s('title');
      tt.textContent = e.worker + ' ' + String(e.event).replace(/_/g, ' ') + ' at ' + ms(e.atMs) +
        (e.reason ? ': ' + e.reason : '');
      line.appendChild(tt);
      svg.appendChild(line);
    });
    host.appendChild(svg);
    host.setAttribute('data-rendered', String(bars));
  }

  function legend() {
    var box = clear(document.getElementById('legend'));
    OUTCOMES.forEach(function (o) {
      if (jobs.some(function (x) { return x.j.outcome === o; })) {
        append(box, h('span', { 'class': oc(o) }, [h('i'), label(o)]));
      }
    });
    append(box, h('span', {}, 'shading: configure lighter, build/command solid, inspect darker; ' +
      'vertical marks: worker deaths and recycles; hover a bar for its times'));
  }

  /* ---- failures and warnings ---- */
  function problems() {
    var sec = clear(document.getElementById('problems'));
    var noted = jobs.filter(function (x) { return x.noted; });
    noted.sort(function (a, b) {
      return (a.j.outcome === 'succeeded') - (b.j.outcome === 'succeeded') || a.i - b.i;
    });
    var bad = noted.filter(function (x) { return x.j.outcome !== 'succeeded'; }).length;
    append(sec, h('h2', { id: 'h-problems' }, 'Failures and warnings (' + bad + ' did not succeed, ' +
      (noted.length - bad) + ' with warnings)'));
    if (!noted.length) append(sec, h('p', { 'class': 'muted' }, 'Every job succeeded without warnings.'));
    if (noted.length > MAX_DETAILS) {
      append(sec, h('p', { 'class': 'muted', id: 'problems-cap' }, 'Showing the first ' + MAX_DETAILS + ' of ' +
        noted.length + ' (those that did not succeed first); every job is in the JSON report.'));
    }
    noted.slice(0, MAX_DETAILS).forEach(function (x, n) {
      var j = x.j;
      var d = h('details', { 'class': 'job ' + oc(j.outcome), id: 'job-' + x.i });
      if (n < 40) d.open = true;
      append(d, h('summary', {}, [h('h3', {}, jname(j)), badge(j.outcome), ' ',
        h('span', { 'class': 'muted' }, (j.worker ? j.worker + ', ' : '') + j.attempts + ' attempt' +
          (j.attempts === 1 ? '' : 's') + ', ' + ms(j.totalMs || 0))]));
      var exit = [];
      if (j.exitCode !== undefined && j.exitCode !== null) exit.push('code ' + j.exitCode);
      if (j.signal) exit.push('signal ' + j.signal);
      var artifactProblems = (j.artifacts || []).filter(function (a) { return a.problem; })
        .map(function (a) { return a.path + ': ' + a.problem; });
      append(d, facts([
        ['Message', j.message],
        ['Exit', j.outcome === 'succeeded' ? null : exit.join(', ')],
        ['Log', j.logPath ? h('code', {}, j.logPath) : null],
        ['Earlier attempts', (j.attemptFailures || []).length ? list(j.attemptFailures) : null],
        ['Warnings', (j.warnings || []).length ? list(j.warnings) : null],
        ['Artifact problems', artifactProblems.length ? list(artifactProblems) : null]
      ]));
      if (j.logTail) append(d, h('pre', { 'class': 'log', 'aria-label': 'log tail of ' + jname(j) }, j.logTail));
      append(sec, d);
    });
  }

  summary();
  header();
  if (!sortFromHash()) {
    if (TARGETS.length > 1) {
      var rank = function (x) {
        var p = x.j.target ? x.j.target.platform : '';
        var k = TARGETS.map(function (t) { return t.platform; }).indexOf(p);
        return k < 0 ? TARGETS.length : k;
      };
      rows(jobs.slice().sort(function (a, b) { return rank(a) - rank(b) || a.i - b.i; }), true);
    } else {
      rows(jobs);
    }
  }
  legend();
  timeline();
  problems();
  window.addEventListener('hashchange', sortFromHash);
  var pending = 0;
  window.addEventListener('resize', function () {
    clearTimeout(pending);
    pending = setTimeout(function () {
      if (document.getElementById('timeline').clientWidth !== drawnWidth) timeline();
    }, 150);
  });
  document.body.setAttribute('data-ready', 'true');
}());

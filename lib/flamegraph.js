// The flame graph renderer of `wasmtrace report --html`, inlined into the
// page (no modules, no network). Reads the JSON in #wasmtrace-data (built by
// report.mjs: per thread a call tree as one flat preorder array of
// [name index, value, self, number of children] per node) and draws one SVG flame graph per thread, root on top:
//   hover  a frame: name, total and self time, share of the thread
//   click  a frame: zoom so it spans the width (its ancestors stay, dimmed);
//          click the root (or "reset zoom", or Escape) to zoom out
//   search highlights matching frames in every thread and says how much of
//          each thread they cover
// Frames narrower than half a pixel are not drawn. Each frame is a
// <g class="frame" data-name data-depth data-value> so tests can read it.
// No function here recurses over the tree: a tree may be as deep as a
// stack (100,000 frames), deeper than the JS stack.
(function () {
  'use strict';
  var ROW = 18;
  var MIN_WIDTH = 0.5;
  var CHAR_WIDTH = 6.7; // 11px monospace
  var SVG_NS = 'http://www.w3.org/2000/svg';

  var data = JSON.parse(document.getElementById('wasmtrace-data').textContent);
  var strings = data.strings;
  var root = document.getElementById('report');
  var tooltip = document.getElementById('tooltip');
  var views = [];
  var query = '';

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function svgEl(tag, attrs) {
    var e = document.createElementNS(SVG_NS, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }

  function ms(weight) {
    if (!data.intervalUs) return weight + ' samples';
    var v = (weight * data.intervalUs) / 1000;
    return v.toFixed(1) + ' ms';
  }

  function pct(part, whole) {
    return whole ? ((100 * part) / whole).toFixed(1) + '%' : '-';
  }

  // Deterministic warm colours (red..yellow), so a function keeps its colour
  // across threads and reloads.
  function colour(name) {
    // A diff's page colours each function by its verdict (lib/diff.mjs).
    if (data.colours && Object.prototype.hasOwnProperty.call(data.colours, name)) return data.colours[name];
    if (name === '(waiting)') return '#b8c4d6'; // blocked, not running: cool grey
    var h = 2166136261;
    for (var i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 16777619) >>> 0;
    var hue = 8 + (h % 47);
    var light = 58 + ((h >>> 8) % 14);
    return 'hsl(' + hue + ',85%,' + light + '%)';
  }

  // Unpacks the flat preorder [nameIndex, value, self, childCount, ...]
  // into linked nodes; returns the root, with the tree's depth in .maxDepth.
  function unpack(flat) {
    var root = null;
    var open = []; // [node, children still to read]
    var maxDepth = 0;
    for (var i = 0; i + 3 < flat.length; i += 4) {
      var top = open.length ? open[open.length - 1] : null;
      var parent = top ? top[0] : null;
      var node = { name: strings[flat[i]], value: flat[i + 1], self: flat[i + 2], parent: parent,
        depth: parent ? parent.depth + 1 : 0, children: [] };
      if (node.depth > maxDepth) maxDepth = node.depth;
      if (parent) {
        parent.children.push(node);
        if (--top[1] === 0) open.pop();
      } else {
        root = node;
      }
      if (flat[i + 3] > 0) open.push([node, flat[i + 3]]);
      while (open.length && open[open.length - 1][1] <= 0) open.pop();
      if (!open.length) break;
    }
    root = root || { name: '', value: 0, self: 0, parent: null, depth: 0, children: [] };
    root.maxDepth = maxDepth;
    return root;
  }

  function isMatch(name) {
    return query !== '' && name.toLowerCase().indexOf(query) >= 0;
  }

  // Sample weight under frames matching the query, each sample counted once.
  function matchedWeight(root) {
    var w = 0;
    var todo = [root];
    while (todo.length) {
      var node = todo.pop();
      if (isMatch(node.name) && node.depth > 0) {
        w += node.value;
        continue;
      }
      for (var i = 0; i < node.children.length; i++) todo.push(node.children[i]);
    }
    return w;
  }

  function View(thread) {
    this.thread = thread;
    this.tree = unpack(thread.tree);
    this.tree.name = 'all samples';
    this.depth = this.tree.maxDepth;
    this.focus = this.tree;
    this.section = el('section', { class: 'thread', id: 'thread-' + thread.tid, 'data-thread': thread.name });
    var head = el('div', { class: 'thread-head' });
    head.appendChild(el('h2', {}, thread.name));
    head.appendChild(el('span', { class: 'meta' }, 'tid ' + thread.tid + ' \u00b7 ' + thread.total + ' samples (' +
      ms(thread.total) + '), ' + thread.idle + ' idle (' + pct(thread.idle, thread.total) + ', not drawn)' +
      (thread.partial ? ', ' + thread.partial + ' partial stack (' + pct(thread.partial, thread.total) + ')' : '') +
      (thread.waiting ? ', ' + thread.waiting + ' waiting (' + pct(thread.waiting, thread.total) + ')' : '')));
    this.matchInfo = el('span', { class: 'meta match-info' });
    head.appendChild(this.matchInfo);
    var reset = el('button', { type: 'button', class: 'reset' }, 'reset zoom');
    var self = this;
    reset.onclick = function () { self.zoom(self.tree); };
    head.appendChild(reset);
    this.section.appendChild(head);
    if (!this.tree.value) {
      this.section.appendChild(el('p', { class: 'empty' }, 'no busy samples on this thread'));
    } else {
      this.svg = svgEl('svg', { class: 'flame', role: 'img', 'aria-label': 'flame graph of ' + thread.name, 'data-thread': thread.name });
      this.section.appendChild(this.svg);
    }
    this.section.appendChild(this.functionsTable());
  }

  View.prototype.functionsTable = function () {
    var t = this.thread;
    var details = el('details', { open: '' });
    details.appendChild(el('summary', {}, 'top functions by self time'));
    var table = el('table', { class: 'functions' });
    var head = el('tr');
    ['self', 'self %', 'waiting', 'total', 'total %', 'function'].forEach(function (h) { head.appendChild(el('th', {}, h)); });
    table.appendChild(head);
    t.functions.forEach(function (f) {
      var tr = el('tr');
      tr.appendChild(el('td', {}, ms(f[1])));
      tr.appendChild(el('td', {}, pct(f[1], t.total)));
      tr.appendChild(el('td', {}, ms(f[3] || 0)));
      tr.appendChild(el('td', {}, ms(f[2])));
      tr.appendChild(el('td', {}, pct(f[2], t.total)));
      tr.appendChild(el('td', {}, f[0]));
      table.appendChild(tr);
    });
    details.appendChild(table);
    return details;
  };

  View.prototype.zoom = function (node) {
    this.focus = node;
    this.render();
  };

  View.prototype.render = function () {
    if (!this.svg) return;
    var width = this.svg.clientWidth || this.section.clientWidth || 1000;
    var svg = this.svg;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    svg.setAttribute('height', String((this.depth + 1) * ROW));
    svg.setAttribute('viewBox', '0 0 ' + width + ' ' + (this.depth + 1) * ROW);
    var focus = this.focus;
    var scale = width / focus.value;
    // Ancestors of the focus span the whole width, dimmed.
    for (var a = focus.parent; a; a = a.parent) this.drawFrame(a, 0, width, true);
    this.drawTree(focus, 0, scale);
    if (query) {
      var w = matchedWeight(this.tree);
      this.matchInfo.textContent = 'matches: ' + ms(w) + ' (' + pct(w, this.thread.total) + ')';
    } else {
      this.matchInfo.textContent = '';
    }
  };

  View.prototype.drawTree = function (focus, x0, scale) {
    var todo = [[focus, x0]];
    while (todo.length) {
      var item = todo.pop();
      var node = item[0];
      var x = item[1];
      var w = node.value * scale;
      if (w < MIN_WIDTH) continue;
      this.drawFrame(node, x, w, false);
      var cx = x;
      var next = [];
      for (var i = 0; i < node.children.length; i++) {
        next.push([node.children[i], cx]);
        cx += node.children[i].value * scale;
      }
      for (var j = next.length - 1; j >= 0; j--) todo.push(next[j]);
    }
  };

  View.prototype.drawFrame = function (node, x, w, dim) {
    var self = this;
    var cls = 'frame' + (dim ? ' dim' : '') + (node.depth > 0 && isMatch(node.name) ? ' match' : '');
    var g = svgEl('g', { class: cls, 'data-name': node.name, 'data-depth': String(node.depth), 'data-value': String(node.value) });
    var y = node.depth * ROW;
    g.appendChild(svgEl('rect', { x: x.toFixed(2), y: String(y), width: Math.max(w, 0.5).toFixed(2), height: String(ROW - 1),
      fill: node.depth === 0 ? '#d9d9de' : colour(node.name) }));
    var fits = Math.floor((w - 6) / CHAR_WIDTH);
    if (fits >= 3) {
      var label = node.name.length <= fits ? node.name : node.name.slice(0, fits - 1) + '\u2026';
      var text = svgEl('text', { x: (x + 3).toFixed(2), y: String(y + ROW - 5) });
      text.textContent = label;
      g.appendChild(text);
    }
    g.addEventListener('click', function () {
      self.zoom(node === self.focus && node.parent ? node.parent : node);
    });
    g.addEventListener('mousemove', function (ev) { self.showTooltip(node, ev); });
    g.addEventListener('mouseleave', function () { tooltip.style.display = 'none'; });
    this.svg.appendChild(g);
  };

  View.prototype.showTooltip = function (node, ev) {
    var t = this.thread;
    tooltip.textContent = node.name + '\n' +
      'total ' + ms(node.value) + ' (' + pct(node.value, t.total) + ' of ' + t.name + ')\n' +
      'self ' + ms(node.self) + ' (' + pct(node.self, t.total) + ')' +
      (node.depth > 0 ? '\nclick to zoom' : '');
    tooltip.style.display = 'block';
    var x = Math.min(ev.clientX + 14, window.innerWidth - tooltip.offsetWidth - 8);
    var y = ev.clientY + 16;
    if (y + tooltip.offsetHeight > window.innerHeight) y = ev.clientY - tooltip.offsetHeight - 10;
    tooltip.style.left = x + 'px';
    tooltip.style.top = y + 'px';
  };

  function header() {
    var box = el('div');
    if (data.file) box.appendChild(el('p', { class: 'meta' }, data.file));
    box.appendChild(el('p', { class: 'meta' }, data.description + '; ' + data.threads.length + ' threads'));
    if (data.drops) box.appendChild(el('p', { class: 'meta' }, data.drops));
    if (data.legend) box.appendChild(el('p', { class: 'meta' }, data.legend));
    var bar = el('div', { class: 'toolbar' });
    var nav = el('nav');
    data.threads.forEach(function (t) { nav.appendChild(el('a', { href: '#thread-' + t.tid }, t.name)); });
    bar.appendChild(nav);
    var search = el('input', { type: 'search', placeholder: 'highlight functions\u2026', 'aria-label': 'search functions' });
    search.addEventListener('input', function () {
      query = search.value.trim().toLowerCase();
      views.forEach(function (v) { v.render(); });
    });
    bar.appendChild(search);
    bar.appendChild(el('span', { class: 'hint' }, 'hover a frame for times; click to zoom; Esc to zoom out'));
    box.appendChild(bar);
    return box;
  }

  root.appendChild(header());
  data.threads.forEach(function (t) {
    var v = new View(t);
    views.push(v);
    root.appendChild(v.section);
  });
  views.forEach(function (v) { v.render(); });

  var pending = 0;
  window.addEventListener('resize', function () {
    cancelAnimationFrame(pending);
    pending = requestAnimationFrame(function () { views.forEach(function (v) { v.render(); }); });
  });
  document.addEventListener('keydown', function (ev) {
    if (ev.key === 'Escape') views.forEach(function (v) { v.zoom(v.tree); });
  });

  // For scripts and tests: the views, and a way to search without typing.
  window.wasmtraceReport = {
    data: data,
    views: views,
    search: function (q) {
      query = String(q || '').toLowerCase();
      views.forEach(function (v) { v.render(); });
    },
  };
})();

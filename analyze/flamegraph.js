/*
 * flamegraph.js: draws pprof-analyze's flame graph. report_flamegraph.c
 * builds this file into the analyzer and writes it after a script that
 * defines PPF_DATA, inside <svg id="ppf"> (a whole SVG document, or the
 * body of an HTML page). It must not contain the CDATA end marker or an
 * HTML script end tag.
 *
 * PPF_DATA: title, subtitle, names[] and fmods[] (per function: its name,
 * its module's index in mods[] or -1), mods[] (module basenames), and
 * nodes: the call tree in preorder, four numbers per node: function index
 * (-1 for the root, "all"), total samples, self samples, children.
 *
 * The page: a frame per call path, as wide as its samples, the root at the
 * bottom; a colour per module (hue from a hash of its name); a tooltip and
 * a detail line with samples and percentages; click a frame to zoom to it
 * (its ancestors stay, dimmed; click one of those, "Reset zoom" or press
 * Escape to zoom out); type a regular expression (or a plain string) in the
 * search box to highlight matching frames (gold, outlined) and see their share.
 *
 * The URL fragment may set, separated by '&':
 *   search=TEXT       search for TEXT once drawn;
 *   test-click=NAME   click the first frame named NAME once drawn (the tests
 *                     use it; data-test-click says "clicked" or "not found").
 * The <svg> element shows the state in attributes, for tests and scripts:
 * data-ready="1" once drawn, data-zoom (the name of the frame zoomed to,
 * "all" when not zoomed), data-zoom-samples, data-matched (the share of
 * samples in matching frames, "" without a search).
 */
(function () {
	'use strict';
	var NS = 'http://www.w3.org/2000/svg', XHTML = 'http://www.w3.org/1999/xhtml';
	var W = 1200, PAD = 10, FH = 17, HEAD = 70, FOOT = 28, CHAR_W = 7;
	var MATCH = 'rgb(255,215,0)';
	var D = PPF_DATA, svg = document.getElementById('ppf');
	var nodes = [], hues = {}, root = null, zoom = null, maxDepth = 0, H = 0;
	var framesG, details, matchedText, resetBtn;
	var HINT = 'Click a frame to zoom, Escape to zoom out; search with the box above.';

	function el(tag, attrs, text) {
		var e = document.createElementNS(NS, tag);
		for (var k in attrs)
			e.setAttribute(k, attrs[k]);
		if (text !== undefined)
			e.textContent = text;
		return e;
	}

	function name(n) { return n.f < 0 ? 'all' : D.names[n.f]; }
	function module(n) { return n.f < 0 || D.fmods[n.f] < 0 ? null : D.mods[D.fmods[n.f]]; }

	function hash(s) {
		var h = 2166136261;
		for (var i = 0; i < s.length; i++)
			h = Math.imul(h ^ s.charCodeAt(i), 16777619);
		/* mix so that names differing only at the end get far apart hues */
		h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
		h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
		return (h ^ (h >>> 16)) >>> 0;
	}

	/*
	 * A hue per module from a hash of its name, in one of 12 slots 30 degrees
	 * apart; a module whose slot is taken moves 150 degrees on, so that up to
	 * 11 modules get clearly different colours (the slot of the search
	 * highlight's gold stays free); more share hues.
	 */
	function assignHues() {
		var used = { 2: true };
		D.mods.slice().sort().forEach(function (m) {
			var slot = hash(m) % 12, k = 0;
			for (; k < 12 && used[slot]; k++)
				slot = (slot + 5) % 12;
			used[slot] = true;
			hues[m] = k < 12 ? slot * 30 : hash(m) % 360;
		});
	}

	function moduleColour(m) {
		return m === null ? 'hsl(0,0%,70%)' : 'hsl(' + hues[m] + ',70%,62%)';
	}

	/* The module's hue, lightness varied a little by function so neighbours differ. */
	function colour(n) {
		var m = module(n);
		if (n.f < 0)
			return 'rgb(205,205,205)';
		if (m === null)
			return 'hsl(0,0%,' + (64 + hash(name(n)) % 12) + '%)';
		return 'hsl(' + hues[m] + ',70%,' + (56 + hash(name(n)) % 14) + '%)';
	}

	function pct(a, b) { return (b ? 100 * a / b : 0).toFixed(2) + '%'; }

	function describe(n, sep) {
		var m = module(n), s = name(n) + (m === null ? '' : ' (' + m + ')') + sep +
			n.total + ' samples, ' + pct(n.total, root.total) + ' of all';
		if (zoom !== root && n.depth > zoom.depth)
			s += ', ' + pct(n.total, zoom.total) + ' of ' + name(zoom);
		return s + sep + 'self ' + n.self + ' samples, ' + pct(n.self, root.total);
	}

	/* Rebuild the tree from the flat preorder list. */
	function parse() {
		var a = D.nodes, open = [];
		for (var i = 0; i + 3 < a.length; i += 4) {
			var n = { f: a[i], total: a[i + 1], self: a[i + 2], left: a[i + 3], kids: [],
				  parent: null, depth: 0, start: 0, used: 0, match: false, i: nodes.length };
			if (open.length) {
				var p = open[open.length - 1];
				n.parent = p;
				n.depth = p.depth + 1;
				n.start = p.start + p.used;
				p.used += n.total;
				p.kids.push(n);
				p.left--;
			} else {
				root = n;
			}
			maxDepth = Math.max(maxDepth, n.depth);
			nodes.push(n);
			if (n.left > 0)
				open.push(n);
			while (open.length && open[open.length - 1].left === 0)
				open.pop();
		}
	}

	function fit(text, w) {
		var max = Math.floor((w - 6) / CHAR_W);
		if (max < 3)
			return '';
		return text.length <= max ? text : text.slice(0, max - 2) + '..';
	}

	function drawFrame(n, x, w, dim) {
		var y = H - FOOT - (n.depth + 1) * FH;
		var g = el('g', { 'class': 'ppf-f' + (dim ? ' ppf-dim' : '') + (n.match ? ' ppf-match' : ''),
				  'data-i': n.i });
		var label = fit(name(n), w);
		g.appendChild(el('title', {}, describe(n, '\n')));
		g.appendChild(el('rect', { x: x.toFixed(2), y: y, width: Math.max(w - 0.6, 0.1).toFixed(2),
					   height: FH - 1, rx: 2, fill: n.match ? MATCH : colour(n) }));
		if (label)
			g.appendChild(el('text', { x: (x + 3).toFixed(2), y: y + FH - 5 }, label));
		framesG.appendChild(g);
	}

	function draw() {
		var scale = (W - 2 * PAD) / (zoom.total || 1), todo = [zoom];
		while (framesG.firstChild)
			framesG.removeChild(framesG.firstChild);
		for (var a = zoom.parent; a; a = a.parent)
			drawFrame(a, PAD, W - 2 * PAD, true);
		while (todo.length) {
			var n = todo.pop(), w = n.total * scale;
			if (w < 0.5)
				continue;
			drawFrame(n, PAD + (n.start - zoom.start) * scale, w, false);
			for (var k = n.kids.length - 1; k >= 0; k--)
				todo.push(n.kids[k]);
		}
		resetBtn.style.display = zoom === root ? 'none' : '';
		svg.setAttribute('data-zoom', name(zoom));
		svg.setAttribute('data-zoom-samples', zoom.total);
	}

	function zoomTo(n) {
		zoom = n;
		draw();
	}

	function regex(q) {
		try {
			return new RegExp(q, 'i');
		} catch (err) {
			return new RegExp(q.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i');
		}
	}

	/* Mark matching frames; a frame under a matching one adds nothing to the share. */
	function search(q) {
		var re = q ? regex(q) : null, matched = 0, todo = [[root, false]];
		while (todo.length) {
			var t = todo.pop(), n = t[0];
			n.match = re !== null && n.f >= 0 && re.test(name(n));
			if (n.match && !t[1])
				matched += n.total;
			for (var k = 0; k < n.kids.length; k++)
				todo.push([n.kids[k], t[1] || n.match]);
		}
		svg.setAttribute('data-matched', re ? pct(matched, root.total) : '');
		matchedText.textContent = re ? 'Matched: ' + pct(matched, root.total) + ' (' +
			matched + ' samples)' : '';
		draw();
	}

	/* Modules by self samples, as many as fit beside the zoom button. */
	function legend(y) {
		var self = {}, order = [], x = PAD + 100, room = W - PAD - 230;
		nodes.forEach(function (n) {
			var m = module(n);
			if (n.f < 0 || m === null)
				return;
			if (!(m in self)) {
				self[m] = 0;
				order.push(m);
			}
			self[m] += n.self;
		});
		order.sort(function (a, b) { return self[b] - self[a] || (a < b ? -1 : 1); });
		for (var i = 0; i < order.length; i++) {
			var w = 15 + order[i].length * 6 + 10;
			if (x + w > room)
				break;
			svg.appendChild(el('rect', { x: x, y: y - 10, width: 11, height: 11, rx: 2,
						     fill: moduleColour(order[i]) }));
			svg.appendChild(el('text', { x: x + 15, y: y }, order[i]));
			x += w;
		}
	}

	function searchBox() {
		var fo = el('foreignObject', { x: W - PAD - 260, y: 8, width: 260, height: 26 });
		var input = document.createElementNS(XHTML, 'input');
		input.setAttribute('type', 'search');
		input.setAttribute('id', 'ppf-search');
		input.setAttribute('placeholder', 'Search (regular expression)');
		input.addEventListener('input', function () { search(input.value); });
		fo.appendChild(input);
		svg.appendChild(fo);
		return input;
	}

	function build() {
		var y = HEAD - 12, input;
		H = HEAD + (maxDepth + 1) * FH + FOOT;
		svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
		if (document.body) {
			svg.setAttribute('width', '100%');
			svg.removeAttribute('height');
		} else {
			svg.setAttribute('width', W);
			svg.setAttribute('height', H);
		}
		svg.appendChild(el('rect', { x: 0, y: 0, width: W, height: H, fill: '#fff' }));
		svg.appendChild(el('text', { x: PAD, y: 24, 'class': 'ppf-title' }, D.title));
		svg.appendChild(el('text', { x: PAD, y: 42, 'class': 'ppf-sub' }, D.subtitle));
		resetBtn = el('text', { x: PAD, y: y, 'class': 'ppf-btn' }, 'Reset zoom');
		resetBtn.addEventListener('click', function () { zoomTo(root); });
		svg.appendChild(resetBtn);
		legend(y);
		matchedText = el('text', { x: W - PAD, y: y, 'text-anchor': 'end' }, '');
		svg.appendChild(matchedText);
		input = searchBox();
		framesG = el('g', { id: 'ppf-frames' });
		svg.appendChild(framesG);
		details = el('text', { x: PAD, y: H - 10 }, HINT);
		svg.appendChild(details);
		framesG.addEventListener('click', function (e) {
			var g = e.target.closest('.ppf-f');
			if (g)
				zoomTo(nodes[+g.getAttribute('data-i')]);
		});
		framesG.addEventListener('mouseover', function (e) {
			var g = e.target.closest('.ppf-f');
			if (g)
				details.textContent = describe(nodes[+g.getAttribute('data-i')], ', ');
		});
		framesG.addEventListener('mouseout', function () { details.textContent = HINT; });
		document.addEventListener('keydown', function (e) {
			if (e.key === 'Escape') {
				zoomTo(root);
			} else if (e.key === 'f' && (e.ctrlKey || e.metaKey)) {
				e.preventDefault();
				input.focus();
			}
		});
		return input;
	}

	function fragment() {
		var out = {};
		location.hash.replace(/^#/, '').split('&').forEach(function (kv) {
			var i = kv.indexOf('=');
			if (i > 0)
				out[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1));
		});
		return out;
	}

	function testClick(want) {
		var gs = framesG.childNodes, hit = null;
		for (var i = 0; i < gs.length && !hit; i++)
			if (name(nodes[+gs[i].getAttribute('data-i')]) === want)
				hit = gs[i];
		svg.setAttribute('data-test-click', hit ? 'clicked' : 'not found');
		if (hit)
			hit.querySelector('rect').dispatchEvent(new MouseEvent('click', { bubbles: true }));
	}

	function main() {
		var p = fragment(), input;
		parse();
		assignHues();
		if (!root)
			nodes.push(root = { f: -1, total: 0, self: 0, kids: [], parent: null, depth: 0,
					    start: 0, i: 0 });
		zoom = root;
		input = build();
		if (p.search) {
			input.value = p.search;
			search(p.search);
		} else {
			search('');
		}
		if (p['test-click'] !== undefined)
			testClick(p['test-click']);
		svg.setAttribute('data-ready', '1');
	}

	main();
})();

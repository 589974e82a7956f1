// The questions table: every row comes from the one block of data (<template id="assay-rows">, JSON),
// shown a page at a time; sort by a heading, filter by text and by a metric's verdict, page through,
// show a row's traces. Every cell is made with textContent: it never writes HTML from the data.
// (The page holds its first rows as HTML too, for readers without scripts; they are replaced here.)
(function () {
  "use strict";
  var table = document.getElementById("questions-table");
  var source = document.getElementById("assay-rows");
  if (!table || !source) {
    return;
  }
  var data = JSON.parse(source.content ? source.content.textContent : source.textContent);
  var search = document.getElementById("filter-text");
  var metricChoice = document.getElementById("filter-metric");
  var verdictChoice = document.getElementById("filter-verdict");
  var count = document.getElementById("row-count");
  var pager = document.getElementById("pager");
  var headers = Array.prototype.slice.call(table.tHead.rows[0].cells);
  var collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });
  var PAGE = data.page;
  var OUTCOMES = data.outcomes; // index -> pass, soft_pass, fail, unscored
  var LABELS = { pass: "pass", soft_pass: "soft pass", fail: "fail", unscored: "unscored" };
  var SYMBOLS = { pass: "\u2713", soft_pass: "\u2248", fail: "\u2717", unscored: "\u2013" };
  var RANKS = { unscored: -1, fail: 0, soft_pass: 0.5, pass: 1 };
  var metrics = data.metrics;
  var withAgreement = data.agreement;
  var TEXTS = withAgreement ? 6 : 5; // id, domain, question, golden, response[, agreement]

  // A row of data: [id, domain, question, golden, response, agreement, values, outcomes, traces].
  var entries = data.rows.map(function (row, index) {
    return { row: row, index: index, text: null, body: null };
  });

  // A row's searchable text, made when first searched: opening the page needs none of it.
  function searchable(entry) {
    if (entry.text === null) {
      var row = entry.row;
      var text = [row[0], row[1], row[2], row[3], row[4], withAgreement ? row[5] || "" : ""];
      entry.text = text.join("\n").toLowerCase();
    }
    return entry.text;
  }
  var shown = entries;
  var page = 0;
  var order = null; // the sort asked for last, kept through filtering

  function outcome(entry, position) {
    return OUTCOMES[entry.row[7][position]];
  }

  function keep(entry, needle, metric, verdict) {
    if (needle && searchable(entry).indexOf(needle) === -1) {
      return false;
    }
    if (!verdict) {
      return true;
    }
    if (metric) {
      return outcome(entry, metrics.indexOf(metric)) === verdict;
    }
    return metrics.some(function (name, position) {
      return outcome(entry, position) === verdict;
    });
  }

  function cell(tag, text, className) {
    var found = document.createElement(tag);
    found.textContent = text;
    if (className) {
      found.className = className;
    }
    return found;
  }

  function graded(value) {
    return typeof value === "number";
  }

  function verdictCell(entry, position) {
    var name = metrics[position];
    var value = entry.row[6][position];
    var result = outcome(entry, position);
    var td = cell("td", graded(value) ? value.toFixed(3) : SYMBOLS[result], "verdict " + result);
    td.setAttribute("data-metric", name);
    td.setAttribute("data-outcome", result);
    td.setAttribute("data-value", JSON.stringify(value === undefined ? null : value));
    td.setAttribute("data-sort", JSON.stringify(graded(value) ? value : RANKS[result]));
    td.title = name + ": " + LABELS[result];
    return td;
  }

  // The row's texts as a metric saw them: 0 means "as the metric before saw it", 1 "the row's own
  // text, lowercased" (golden is field 2 of a trace and text 3 of a row; response 3 and 4).
  function seen(row, position, field) {
    var traces = row[8];
    for (var at = position; at >= 0; at -= 1) {
      var trace = traces[at];
      if (trace && trace[field] !== 0) {
        return trace[field] === 1 ? row[field + 1].toLowerCase() : trace[field];
      }
    }
    return null;
  }

  function tracePanel(entry) {
    var traces = entry.row[8];
    var response = entry.row[4];
    if (!traces.some(Boolean)) {
      return cell("p", "No traces for this row.", "note");
    }
    var list = document.createElement("div");
    list.className = "trace-list";
    traces.forEach(function (trace, position) {
      if (!trace) {
        return;
      }
      var result = OUTCOMES[trace[0]];
      var box = document.createElement("div");
      box.className = "trace " + result;
      box.setAttribute("data-metric", metrics[position]);
      var title = metrics[position] + ": " + LABELS[result];
      if (trace[5] !== null && trace[5] !== undefined) {
        title += " (score " + trace[5].toFixed(3) + ")";
      }
      box.appendChild(cell("h4", title));
      box.appendChild(cell("p", data.strings[trace[1]], "rule"));
      var span = trace[4];
      if (span && span[0] >= 0 && span[0] <= span[1] && span[1] <= response.length) {
        var marked = document.createElement("p");
        marked.appendChild(cell("span", "matched in the response", "label"));
        marked.appendChild(document.createTextNode(" "));
        var quote = document.createElement("q");
        quote.appendChild(document.createTextNode(response.slice(0, span[0])));
        quote.appendChild(cell("mark", response.slice(span[0], span[1])));
        quote.appendChild(document.createTextNode(response.slice(span[1])));
        marked.appendChild(quote);
        box.appendChild(marked);
      }
      [["golden, as the metric saw it", 2], ["response, as the metric saw it", 3]].forEach(function (part) {
        var text = seen(entry.row, position, part[1]);
        if (text !== null) {
          var line = document.createElement("p");
          line.appendChild(cell("span", part[0], "label"));
          line.appendChild(document.createTextNode(" "));
          line.appendChild(cell("q", text));
          box.appendChild(line);
        }
      });
      list.appendChild(box);
    });
    return list;
  }

  function body(entry) {
    if (entry.body) {
      return entry.body;
    }
    var row = entry.row;
    var tbody = document.createElement("tbody");
    tbody.setAttribute("data-id", row[0]);
    tbody.setAttribute("data-index", String(entry.index));
    var tr = document.createElement("tr");
    tr.className = "question";
    var expand = document.createElement("td");
    expand.className = "expand";
    var button = cell("button", "\u25b8", "expand");
    button.type = "button";
    button.setAttribute("aria-expanded", "false");
    button.setAttribute("aria-label", "traces of " + row[0]);
    expand.appendChild(button);
    tr.appendChild(expand);
    ["id", "domain", "question", "golden", "response", "agreement"].slice(0, TEXTS).forEach(function (part, at) {
      tr.appendChild(cell("td", row[at] === null ? "" : row[at], part));
    });
    metrics.forEach(function (name, position) {
      tr.appendChild(verdictCell(entry, position));
    });
    var traces = document.createElement("tr");
    traces.className = "traces";
    traces.hidden = true;
    var holder = document.createElement("td");
    holder.colSpan = tr.cells.length;
    traces.appendChild(holder);
    tbody.appendChild(tr);
    tbody.appendChild(traces);
    entry.body = tbody;
    return tbody;
  }

  function render() {
    var pages = Math.max(1, Math.ceil(shown.length / PAGE));
    page = Math.min(page, pages - 1);
    Array.prototype.slice.call(table.tBodies).forEach(function (old) {
      table.removeChild(old);
    });
    var fragment = document.createDocumentFragment();
    shown.slice(page * PAGE, (page + 1) * PAGE).forEach(function (entry) {
      fragment.appendChild(body(entry));
    });
    table.appendChild(fragment);
    count.textContent = shown.length + " of " + entries.length + (entries.length === 1 ? " row" : " rows");
    if (data.total > entries.length) {
      count.textContent += " shown, of " + data.total; // the table holds some of the run's rows
    }
    if (pager) {
      pager.hidden = pages < 2;
      pager.querySelector(".page-of").textContent = "page " + (page + 1) + " of " + pages;
      pager.querySelector("button.previous").disabled = page === 0;
      pager.querySelector("button.next").disabled = page >= pages - 1;
    }
  }

  function filter() {
    var needle = search.value.trim().toLowerCase();
    var metric = metricChoice.value;
    var verdict = verdictChoice.value;
    shown = entries.filter(function (entry) {
      return keep(entry, needle, metric, verdict);
    });
    if (order) {
      shown.sort(order);
    }
    page = 0;
    render();
  }

  function sortKey(entry, column, numeric) {
    var at = column - 1; // the first column holds the expand buttons
    if (!numeric) {
      var text = entry.row[at];
      return text === null ? "" : text;
    }
    var position = at - TEXTS;
    var value = entry.row[6][position];
    return graded(value) ? value : RANKS[outcome(entry, position)];
  }

  function sortBy(column) {
    var header = headers[column];
    var numeric = header.getAttribute("data-type") === "number";
    var ascending = header.getAttribute("aria-sort") !== "ascending";
    headers.forEach(function (other) {
      if (other.hasAttribute("aria-sort")) {
        other.setAttribute("aria-sort", "none");
      }
    });
    header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    order = function (a, b) {
      var x = sortKey(a, column, numeric);
      var y = sortKey(b, column, numeric);
      var found = numeric ? (x < y ? -1 : x > y ? 1 : 0) : collator.compare(x, y);
      // Ties keep the input order, whichever way the column runs.
      return (ascending ? found : -found) || a.index - b.index;
    };
    shown = shown.slice().sort(order);
    page = 0;
    render();
  }

  headers.forEach(function (header, column) {
    var button = header.querySelector("button.sort");
    if (button) {
      button.addEventListener("click", function () {
        sortBy(column);
      });
    }
  });

  table.addEventListener("click", function (event) {
    var button = event.target.closest("button.expand");
    if (!button) {
      return;
    }
    var tbody = button.closest("tbody");
    var traces = tbody.rows[1];
    var entry = entries[Number(tbody.getAttribute("data-index"))];
    var holder = traces.cells[0];
    if (!holder.firstChild && entry) {
      holder.appendChild(tracePanel(entry)); // made when first opened: most rows never are
    }
    var open = button.getAttribute("aria-expanded") === "true";
    button.setAttribute("aria-expanded", open ? "false" : "true");
    traces.hidden = open;
  });

  if (pager) {
    pager.querySelector("button.previous").addEventListener("click", function () {
      page -= 1;
      render();
    });
    pager.querySelector("button.next").addEventListener("click", function () {
      page += 1;
      render();
    });
  }
  search.addEventListener("input", filter);
  metricChoice.addEventListener("change", filter);
  verdictChoice.addEventListener("change", filter);
  filter();
})();

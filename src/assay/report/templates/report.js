// The questions table: sort by a heading, filter by text and by a metric's verdict, show a row's traces.
// It only moves, hides and shows elements the page already has: it never writes HTML from the data.
(function () {
  "use strict";
  var table = document.getElementById("questions-table");
  if (!table) {
    return;
  }
  var search = document.getElementById("filter-text");
  var metricChoice = document.getElementById("filter-metric");
  var verdictChoice = document.getElementById("filter-verdict");
  var count = document.getElementById("row-count");
  var headers = Array.prototype.slice.call(table.tHead.rows[0].cells);
  var collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });

  var entries = Array.prototype.map.call(table.tBodies, function (body, index) {
    var row = body.rows[0];
    var outcomes = {};
    Array.prototype.forEach.call(row.querySelectorAll("td[data-metric]"), function (cell) {
      outcomes[cell.getAttribute("data-metric")] = cell.getAttribute("data-outcome");
    });
    return { body: body, row: row, index: index, text: row.textContent.toLowerCase(), outcomes: outcomes };
  });

  function keep(entry, needle, metric, verdict) {
    if (needle && entry.text.indexOf(needle) === -1) {
      return false;
    }
    if (!verdict) {
      return true;
    }
    if (metric) {
      return entry.outcomes[metric] === verdict;
    }
    return Object.keys(entry.outcomes).some(function (name) {
      return entry.outcomes[name] === verdict;
    });
  }

  function filter() {
    var needle = search.value.trim().toLowerCase();
    var shown = 0;
    entries.forEach(function (entry) {
      var kept = keep(entry, needle, metricChoice.value, verdictChoice.value);
      entry.body.hidden = !kept;
      shown += kept ? 1 : 0;
    });
    count.textContent = shown + " of " + entries.length + " rows";
  }

  function sortKey(entry, column, numeric) {
    var cell = entry.row.cells[column];
    if (numeric) {
      var value = parseFloat(cell.getAttribute("data-sort"));
      return isNaN(value) ? -Infinity : value;
    }
    return cell.textContent;
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
    var sorted = entries.slice().sort(function (a, b) {
      var x = sortKey(a, column, numeric);
      var y = sortKey(b, column, numeric);
      var order = numeric ? (x < y ? -1 : x > y ? 1 : 0) : collator.compare(x, y);
      // Ties keep the input order, whichever way the column runs.
      return (ascending ? order : -order) || a.index - b.index;
    });
    sorted.forEach(function (entry) {
      table.appendChild(entry.body);
    });
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
    var traces = button.closest("tbody").rows[1];
    var open = button.getAttribute("aria-expanded") === "true";
    button.setAttribute("aria-expanded", open ? "false" : "true");
    traces.hidden = open;
  });

  search.addEventListener("input", filter);
  metricChoice.addEventListener("change", filter);
  verdictChoice.addEventListener("change", filter);
  filter();
})();

"""Fixed text sources of the demo workspace: report page, notes, script and diagram."""

from __future__ import annotations

REPORT_HTML = """\
<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Quarterly sales analysis</title>
  <link rel="stylesheet" href="style.css">
  <script src="chart.js" defer></script>
</head>
<body>
  <header>
    <p class="eyebrow">Sales analytics &middot; fiscal year 2024</p>
    <h1>Quarterly sales analysis</h1>
    <p class="lede">Revenue grew in every quarter, led by the North region and the
      annual plans launched in Q3.</p>
  </header>
  <main>
    <section class="kpis">
      <div class="kpi"><span class="value">888.3 k$</span>total revenue</div>
      <div class="kpi"><span class="value">+47.1 %</span>Q4 vs Q1</div>
      <div class="kpi"><span class="value">1,204</span>orders</div>
    </section>
    <section>
      <h2>Revenue by quarter</h2>
      <img src="chart.png" alt="Bar chart of revenue by quarter" width="800"
           height="500">
    </section>
    <section>
      <h2>Quarterly detail</h2>
      <div id="bars" class="bars" aria-label="Revenue bars"></div>
      <table id="quarters">
        <thead><tr><th>Quarter</th><th>Revenue (k$)</th><th>Share</th></tr></thead>
        <tbody></tbody>
      </table>
      <p id="script-status" class="muted">Waiting for chart.js&hellip;</p>
    </section>
    <section>
      <h2>Findings</h2>
      <ol>
        <li>North contributed 38 % of revenue; South is flat quarter over quarter.</li>
        <li>Annual plans lifted average order value by 21 % from Q3.</li>
        <li>Refunds stayed below 2 % of orders in every month.</li>
      </ol>
    </section>
  </main>
  <footer>Generated from <code>data/sales.csv</code> by
    <code>analysis/clean_data.py</code>.</footer>
  <script type="application/json" id="quarter-data">
    [{"quarter": "Q1", "revenue": 182.4}, {"quarter": "Q2", "revenue": 205.9},
     {"quarter": "Q3", "revenue": 231.7}, {"quarter": "Q4", "revenue": 268.3}]
  </script>
</body>
</html>
"""

REPORT_CSS = """\
:root { --ink: #1f2937; --muted: #64748b; --accent: #2563eb; --line: #e2e8f0; }
* { box-sizing: border-box; }
body {
  margin: 0; font: 16px/1.55 system-ui, -apple-system, "Segoe UI", sans-serif;
  color: var(--ink); background: #f8fafc;
}
header { padding: 40px 48px 24px; background: #1e3a8a; color: #fff; }
header h1 { margin: 4px 0 8px; font-size: 2.1rem; }
.eyebrow { margin: 0; text-transform: uppercase; letter-spacing: .08em; opacity: .8; }
.lede { max-width: 46rem; margin: 0; opacity: .92; }
main { max-width: 880px; margin: 0 auto; padding: 24px 48px 48px; }
section { margin-top: 28px; }
h2 { font-size: 1.25rem; border-bottom: 1px solid var(--line); padding-bottom: 6px; }
img { max-width: 100%; height: auto; border: 1px solid var(--line); background: #fff; }
.kpis { display: flex; gap: 16px; }
.kpi {
  flex: 1; padding: 16px; background: #fff; border: 1px solid var(--line);
  border-radius: 8px; display: flex; flex-direction: column; color: var(--muted);
}
.kpi .value { font-size: 1.6rem; font-weight: 600; color: var(--ink); }
.bars { display: grid; gap: 6px; margin-bottom: 16px; }
.bar { background: var(--accent); color: #fff; padding: 2px 8px; border-radius: 4px; }
table { width: 100%; border-collapse: collapse; background: #fff; }
th, td { text-align: left; padding: 8px 12px; border-bottom: 1px solid var(--line); }
th { background: #f1f5f9; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.muted { color: var(--muted); font-size: .9rem; }
footer { padding: 16px 48px; color: var(--muted); border-top: 1px solid var(--line); }
"""

REPORT_JS = """\
// Builds the quarterly bars and table from the JSON embedded in index.html.
(function () {
  "use strict";

  function render() {
    var source = document.getElementById("quarter-data");
    var rows = JSON.parse(source.textContent);
    var total = rows.reduce(function (sum, row) { return sum + row.revenue; }, 0);
    var peak = Math.max.apply(null, rows.map(function (row) { return row.revenue; }));
    var bars = document.getElementById("bars");
    var body = document.querySelector("#quarters tbody");

    rows.forEach(function (row) {
      var bar = document.createElement("div");
      bar.className = "bar";
      bar.style.width = (100 * row.revenue / peak).toFixed(1) + "%";
      bar.textContent = row.quarter + " \\u2014 " + row.revenue.toFixed(1) + " k$";
      bars.appendChild(bar);

      var tr = document.createElement("tr");
      var share = (100 * row.revenue / total).toFixed(1) + " %";
      [row.quarter, row.revenue.toFixed(1), share].forEach(function (text, index) {
        var td = document.createElement("td");
        td.textContent = text;
        if (index > 0) { td.className = "num"; }
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });

    var status = document.getElementById("script-status");
    status.textContent =
      "Table generated by script (chart.js), " + rows.length + " rows.";
    document.body.setAttribute("data-generated-by", "chart.js");
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", render);
  } else {
    render();
  }
})();
"""

SUMMARY_MD = """\
# Quarterly sales analysis — summary

Revenue grew **47 %** from Q1 to Q4. The full report is in
[report/index.html](../report/index.html); the raw data is `data/sales.csv`.

![Revenue by quarter](figure.png)

## Results by quarter

| Quarter | Revenue (k$) | Orders | Avg. order ($) |
|---------|-------------:|-------:|---------------:|
| Q1      |        182.4 |    268 |            681 |
| Q2      |        205.9 |    291 |            708 |
| Q3      |        231.7 |    305 |            760 |
| Q4      |        268.3 |    340 |            789 |

## What was done

- [x] Load `data/sales.csv` and drop duplicate order ids
- [x] Normalise region names and currencies
- [x] Aggregate revenue per quarter and region
- [ ] Review the refund outliers in March with finance
- [ ] Add the 2023 baseline once the export is available

## Reproduce

```python
from analysis.clean_data import load_orders, revenue_by_quarter

orders = load_orders("data/sales.csv")
for quarter, revenue in revenue_by_quarter(orders).items():
    print(f"{quarter}: {revenue / 1000:.1f} k$")
```

## Notes

> Q3 includes the launch of annual plans; compare Q3 and Q4 with care.

See the [pandas user guide](https://pandas.pydata.org/docs/user_guide/index.html)
for the grouping used here.
"""

CLEAN_DATA_PY = '''\
"""Clean the raw sales export and aggregate revenue per quarter and region."""

from __future__ import annotations

import csv
import json
import sys
from collections import defaultdict
from dataclasses import dataclass
from datetime import date
from pathlib import Path

REGION_ALIASES = {
    "n": "North",
    "north": "North",
    "s": "South",
    "south": "South",
    "e": "East",
    "east": "East",
    "w": "West",
    "west": "West",
}


@dataclass(frozen=True)
class Order:
    order_id: str
    day: date
    region: str
    customer: str
    units: int
    unit_price: float
    refunded: bool

    @property
    def revenue(self) -> float:
        return 0.0 if self.refunded else self.units * self.unit_price

    @property
    def quarter(self) -> str:
        return f"Q{(self.day.month - 1) // 3 + 1}"


def normalise_region(raw: str) -> str:
    key = raw.strip().lower()
    if key not in REGION_ALIASES:
        raise ValueError(f"unknown region: {raw!r}")
    return REGION_ALIASES[key]


def parse_row(row: dict[str, str]) -> Order:
    return Order(
        order_id=row["order_id"].strip(),
        day=date.fromisoformat(row["date"]),
        region=normalise_region(row["region"]),
        customer=" ".join(row["customer"].split()),
        units=int(row["units"]),
        unit_price=float(row["unit_price"]),
        refunded=row["refunded"].strip().lower() == "yes",
    )


def load_orders(path: str | Path) -> list[Order]:
    """Read the export, skipping duplicate order ids (the CRM retries uploads)."""
    seen: set[str] = set()
    orders: list[Order] = []
    with open(path, newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            order = parse_row(row)
            if order.order_id in seen:
                continue
            seen.add(order.order_id)
            orders.append(order)
    return orders


def revenue_by_quarter(orders: list[Order]) -> dict[str, float]:
    totals: dict[str, float] = defaultdict(float)
    for order in orders:
        totals[order.quarter] += order.revenue
    return dict(sorted(totals.items()))


def revenue_by_region(orders: list[Order]) -> dict[str, float]:
    totals: dict[str, float] = defaultdict(float)
    for order in orders:
        totals[order.region] += order.revenue
    return dict(sorted(totals.items(), key=lambda item: -item[1]))


def refund_rate(orders: list[Order]) -> float:
    if not orders:
        return 0.0
    return sum(order.refunded for order in orders) / len(orders)


def main(argv: list[str]) -> int:
    source = Path(argv[1]) if len(argv) > 1 else Path("data/sales.csv")
    orders = load_orders(source)
    summary = {
        "orders": len(orders),
        "by_quarter": revenue_by_quarter(orders),
        "by_region": revenue_by_region(orders),
        "refund_rate": round(refund_rate(orders), 4),
    }
    json.dump(summary, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
'''

DIAGRAM_SVG = """\
<svg xmlns="http://www.w3.org/2000/svg" width="640" height="220" viewBox="0 0 640 220"
     font-family="Helvetica, Arial, sans-serif" font-size="14">
  <title>Sales analysis pipeline</title>
  <defs>
    <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8"
            markerHeight="8" orient="auto-start-reverse">
      <path d="M 0 0 L 10 5 L 0 10 z" fill="#334155"/>
    </marker>
  </defs>
  <rect width="640" height="220" fill="#f8fafc"/>
  <g stroke="#334155" stroke-width="1.5">
    <rect x="20" y="70" width="150" height="60" rx="8" fill="#dbeafe"/>
    <rect x="245" y="70" width="150" height="60" rx="8" fill="#dcfce7"/>
    <rect x="470" y="30" width="150" height="50" rx="8" fill="#fef3c7"/>
    <rect x="470" y="120" width="150" height="50" rx="8" fill="#fef3c7"/>
    <line x1="170" y1="100" x2="243" y2="100" marker-end="url(#arrow)"/>
    <line x1="395" y1="92" x2="468" y2="58" marker-end="url(#arrow)"/>
    <line x1="395" y1="108" x2="468" y2="142" marker-end="url(#arrow)"/>
  </g>
  <g fill="#0f172a" text-anchor="middle">
    <text x="95" y="97">sales.csv</text>
    <text x="95" y="116" font-size="11" fill="#475569">raw export</text>
    <text x="320" y="97">clean_data.py</text>
    <text x="320" y="116" font-size="11" fill="#475569">dedupe, normalise</text>
    <text x="545" y="60">metrics.json</text>
    <text x="545" y="150">report/index.html</text>
  </g>
  <text x="20" y="200" font-size="12" fill="#64748b">Data flow of the quarterly
    analysis</text>
</svg>
"""

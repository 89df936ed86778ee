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

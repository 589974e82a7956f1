"""The seed scripts' reference implementation: pandas, DataFrame.apply(axis=1), one line per protocol.

Used only by bench_score.py and bench_outputs.py (with --out, and its to_csv) as the baseline; it prints
per-domain and combined accuracy like the seed scripts.
"""

from __future__ import annotations

import argparse
import string

import pandas as pd


def words(text: str) -> set[str]:
    return {w.strip(string.punctuation) for w in text.lower().split()} - {""}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--responses", required=True)
    parser.add_argument("--out", help="also write the scored rows as CSV (DataFrame.to_csv)")
    args = parser.parse_args()
    df = pd.read_csv(args.responses, keep_default_na=False)
    df["exact"] = df.apply(lambda r: str(r["answer"]).lower() in str(r["response"]).lower(), axis=1)
    df["overlap"] = df.apply(lambda r: words(str(r["answer"])) <= words(str(r["response"])), axis=1)
    print(df.groupby("Domain")[["exact", "overlap"]].mean())
    print("combined", df["exact"].mean(), df["overlap"].mean())
    if args.out:
        df.to_csv(args.out, index=False)


if __name__ == "__main__":
    main()

"""Markdown table of a training run's loss curve from its train.jsonl (for the model card).

    /usr/bin/python3 models/train/loss_table.py ~/.cache/reposhapley/checkpoints/default/train.jsonl [--every 50]
"""
import argparse
import json


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("log")
    parser.add_argument("--every", type=int, default=50, help="one row per this many steps")
    args = parser.parse_args()
    rows, val = [], {}
    with open(args.log, encoding="utf-8") as f:
        for line in f:
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue  # a torn last line of a killed run
            if event.get("event") == "val":
                val[event["step"]] = event.get("val_loss")
            elif event.get("event") == "train" and (event["step"] % args.every == 0 or event["step"] == 1):
                rows.append(event)
    print("| step | tokens seen | train loss (nats/token) | val loss | tokens/s | wall (h) |")
    print("|---|---|---|---|---|---|")
    for event in rows:
        v = val.get(event["step"])
        print(f"| {event['step']} | {event['tokens']:,} | {event['loss']:.3f} | {'' if v is None else f'{v:.3f}'} "
              f"| {event['tok_per_s']:.0f} | {event['wall_s'] / 3600:.2f} |")


if __name__ == "__main__":
    main()

import type { HourTokens } from "@/lib/workspaces/usage";

const BAR = 4;
const GAP = 1;
const HEIGHT = 20;

/** A workspace's tokens by the hour, oldest at the left; each bar's title says its hour and tokens. */
export function HourBars({ hours }: { hours: HourTokens[] }) {
  const most = Math.max(1, ...hours.map((h) => h.tokens));
  return (
    <svg
      className="hour-bars"
      width={hours.length * (BAR + GAP)}
      height={HEIGHT}
      role="img"
      aria-label="Tokens by hour, last 24 hours"
    >
      {hours.map((h, i) => {
        // An hour with calls shows at least a sliver, however small beside the busiest.
        const tall = h.tokens === 0 ? 0 : Math.max(1, Math.round((h.tokens / most) * HEIGHT));
        return (
          <rect
            key={h.hour}
            x={i * (BAR + GAP)}
            y={HEIGHT - tall}
            width={BAR}
            height={tall}
            data-tokens={h.tokens}
          >
            <title>{`${new Date(h.hour).toISOString().slice(11, 16)} UTC: ${h.tokens.toLocaleString("en-US")} tokens`}</title>
          </rect>
        );
      })}
    </svg>
  );
}

import type { PassRate } from "../../api/types";
import { percent } from "../common/format";

/** A pass rate as a bar with its interval as a whisker, and the same as text. */
export function RateBar({ rate }: { rate: PassRate }) {
  const low = rate.ci95?.[0] ?? 0;
  const high = rate.ci95?.[1] ?? 0;
  return (
    <div className="rate">
      <span className="rate-bar" aria-hidden="true">
        <span className="rate-fill" style={{ width: `${(rate.rate ?? 0) * 100}%` }} />
        {rate.ci95 && <span className="rate-ci" style={{ left: `${low * 100}%`, width: `${(high - low) * 100}%` }} />}
      </span>
      <span className="rate-text">
        {percent(rate.rate)}
        {rate.ci95 && (
          <span className="muted">
            {" "}
            ({percent(low)}–{percent(high)})
          </span>
        )}
      </span>
    </div>
  );
}

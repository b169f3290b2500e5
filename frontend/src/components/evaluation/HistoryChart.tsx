import {
  CategoryScale,
  Chart,
  type ChartConfiguration,
  Filler,
  LineController,
  LineElement,
  LinearScale,
  PointElement,
  Tooltip,
} from "chart.js";
import { useEffect, useRef } from "react";
import type { HistoryPoint } from "../../api/types";

// Only what a line chart with a shaded band needs, so the rest of Chart.js stays out of the bundle.
Chart.register(LineController, LineElement, PointElement, Filler, CategoryScale, LinearScale, Tooltip);

const COLOURS = { line: "#2f5bd3", band: "rgba(47, 91, 211, 0.14)", regression: "#b42318", improvement: "#137a3b" };

function pointColour(point: HistoryPoint): string {
  if (point.shift === "regression") return COLOURS.regression;
  if (point.shift === "improvement") return COLOURS.improvement;
  return COLOURS.line;
}

function pct(value: number | null | undefined): number | null {
  return value === null || value === undefined ? null : Math.round(value * 1000) / 10;
}

/**
 * Pass rate of each completed evaluation (oldest left) as a line, its Wilson 95% interval as a band;
 * a regression is a larger red point, an improvement a green one. Clicking a point opens its evaluation.
 * The same figures are listed as text beside the chart.
 */
export function HistoryChart({ points, onOpen }: { points: readonly HistoryPoint[]; onOpen: (evaluationId: number) => void }) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const openRef = useRef(onOpen);
  openRef.current = onOpen;
  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas) return undefined;
    const config: ChartConfiguration<"line", (number | null)[], string> = {
      type: "line",
      data: {
        labels: points.map((point) => `#${point.evaluation_id}`),
        datasets: [
          { label: "95% low", data: points.map((p) => pct(p.pass_rate.ci95?.[0])), borderWidth: 0, pointRadius: 0, fill: false },
          {
            label: "95% high",
            data: points.map((p) => pct(p.pass_rate.ci95?.[1])),
            borderWidth: 0,
            pointRadius: 0,
            fill: "-1",
            backgroundColor: COLOURS.band,
          },
          {
            label: "pass rate",
            data: points.map((p) => pct(p.pass_rate.rate)),
            borderColor: COLOURS.line,
            pointBackgroundColor: points.map(pointColour),
            pointBorderColor: points.map(pointColour),
            pointRadius: points.map((p) => (p.shift === "regression" ? 6 : 4)),
            pointHoverRadius: 8,
            tension: 0,
          },
        ],
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        interaction: { mode: "index", intersect: false },
        plugins: {
          tooltip: {
            filter: (item) => item.datasetIndex === 2,
            callbacks: {
              title: (items) => {
                const point = points[items[0]?.dataIndex ?? -1];
                return point ? `#${point.evaluation_id} ${point.name}` : "";
              },
              label: (item) => {
                const point = points[item.dataIndex];
                if (!point) return "";
                const [low, high] = [pct(point.pass_rate.ci95?.[0]), pct(point.pass_rate.ci95?.[1])];
                const shift = point.shift ? ` · ${point.shift === "steady" ? "within noise" : point.shift}` : "";
                return `${pct(point.pass_rate.rate) ?? "–"}% (95% ${low ?? "–"}–${high ?? "–"}%)${shift}`;
              },
            },
          },
        },
        scales: { y: { min: 0, max: 100, ticks: { callback: (value) => `${value}%` } } },
        onClick: (_event, elements) => {
          const point = points[elements[0]?.index ?? -1];
          if (point) openRef.current(point.evaluation_id);
        },
      },
    };
    const chart = new Chart(canvas, config);
    return () => chart.destroy();
  }, [points]);
  return (
    <div className="history-chart">
      <canvas ref={canvasRef} role="img" aria-label="Pass rate of each completed evaluation over time, with 95% intervals" />
    </div>
  );
}

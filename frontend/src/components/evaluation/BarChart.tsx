import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  type ChartConfiguration,
  LinearScale,
  Tooltip,
} from "chart.js";
import { useEffect, useRef } from "react";

// Register only what a bar chart needs, so the rest of Chart.js stays out of the bundle.
Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip);

export interface Bar {
  label: string;
  value: number;
  color: string;
}

/** A small horizontal bar chart (Chart.js on a canvas); the same numbers are always also shown as text. */
export function BarChart({ bars, label }: { bars: readonly Bar[]; label: string }) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas) return undefined;
    const config: ChartConfiguration<"bar"> = {
      type: "bar",
      data: {
        labels: bars.map((bar) => bar.label),
        datasets: [{ data: bars.map((bar) => bar.value), backgroundColor: bars.map((bar) => bar.color), borderRadius: 3 }],
      },
      options: {
        indexAxis: "y",
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        plugins: { tooltip: { enabled: true } },
        scales: { x: { beginAtZero: true, ticks: { precision: 0 } } },
      },
    };
    const chart = new Chart(canvas, config);
    return () => chart.destroy();
  }, [bars]);
  return (
    <div className="bar-chart" style={{ height: Math.max(80, bars.length * 30 + 30) }}>
      <canvas ref={canvasRef} role="img" aria-label={label} />
    </div>
  );
}

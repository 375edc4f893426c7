import uPlot from 'uplot';
import type { SiteAnalytics } from '../../src/common/api-types';
import { parseApiTime } from './format';

/** A deployment's going live, drawn as a dashed line across the chart. */
interface Marker {
  /** Seconds since the epoch, as uPlot's time scale counts. */
  at: number;
  label: string;
}

const seconds = (timestamp: string) => parseApiTime(timestamp).getTime() / 1000;

/** A colour of the page's palette (app.css), which a canvas cannot read from CSS itself. */
function cssColour(element: Element, name: string, fallback: string): string {
  return getComputedStyle(element).getPropertyValue(name).trim() || fallback;
}

/**
 * Draws each marker within the plot: a dashed line from top to bottom, and its label at the top,
 * beside the line (to its left near the right edge). A label that would overlap the one before
 * (deployments minutes apart) goes a line lower.
 */
function markersPlugin(markers: readonly Marker[], colour: string): uPlot.Plugin {
  return {
    hooks: {
      draw: (chart) => {
        const { ctx, bbox } = chart;
        const pixel = devicePixelRatio;
        ctx.save();
        ctx.strokeStyle = colour;
        ctx.fillStyle = colour;
        ctx.setLineDash([4 * pixel, 4 * pixel]);
        ctx.lineWidth = pixel;
        ctx.font = `${11 * pixel}px system-ui, sans-serif`;
        ctx.textBaseline = 'top';
        let line = 0;
        let previousEnd = -Infinity;
        for (const marker of [...markers].sort((a, b) => a.at - b.at)) {
          const x = Math.round(chart.valToPos(marker.at, 'x', true));
          if (x < bbox.left || x > bbox.left + bbox.width) continue;
          ctx.beginPath();
          ctx.moveTo(x, bbox.top);
          ctx.lineTo(x, bbox.top + bbox.height);
          ctx.stroke();
          const width = ctx.measureText(marker.label).width;
          const left = x + 3 * pixel + width > bbox.left + bbox.width ? x - 3 * pixel - width : x + 3 * pixel;
          line = left < previousEnd ? line + 1 : 0;
          previousEnd = left + width + 3 * pixel;
          ctx.textAlign = 'left';
          ctx.fillText(marker.label, left, bbox.top + (2 + 13 * line) * pixel);
        }
        ctx.restore();
      },
    },
  };
}

/**
 * The live host's requests and visitors over the range, one point per interval, with each
 * deployment that went live within it marked (uPlot: a canvas, its legend showing the values
 * under the cursor). It is drawn once it is in the page, follows the page's width, and is
 * taken down when `signal` aborts. Once drawn, `data-requests` and `data-markers` say what the
 * plot holds: the requests it draws in all, and the deployments it marks.
 */
export function trafficChart(analytics: SiteAnalytics, signal: AbortSignal): HTMLElement {
  const { series } = analytics.live;
  const data: uPlot.AlignedData = [series.map((point) => seconds(point.start)), series.map((point) => point.requests), series.map((point) => point.visitors)];
  const from = seconds(analytics.from);
  const to = seconds(analytics.to);
  const markers = analytics.deployments.flatMap((deployment) => {
    const at = deployment.liveFrom === null ? NaN : seconds(deployment.liveFrom);
    return at >= from && at < to ? [{ at, label: deployment.deploymentId.slice(0, 6) }] : [];
  });
  const element = document.createElement('div');
  element.className = 'traffic-chart';
  let plot: uPlot | undefined;

  const draw = () => {
    const accent = cssColour(element, '--accent', '#2357d9');
    const muted = cssColour(element, '--muted', '#57606a');
    const text = cssColour(element, '--text', '#1b1f24');
    const axis = { stroke: muted, grid: { stroke: cssColour(element, '--border', '#d0d7de'), width: 1 }, ticks: { stroke: muted } };
    const options: uPlot.Options = {
      width: Math.max(280, element.clientWidth),
      height: 240,
      scales: { x: { time: true, range: [from, to] }, y: { range: (_chart, _min, max) => [0, Math.max(1, max)] } },
      axes: [axis, { ...axis, size: 56 }],
      series: [
        {},
        { label: 'Requests', stroke: accent, width: 2, fill: `${accent}22`, points: { show: series.length <= 60 } },
        { label: 'Visitors', stroke: text, width: 1.5, dash: [6, 3], points: { show: series.length <= 60 } },
      ],
      plugins: [markersPlugin(markers, muted)],
    };
    plot = new uPlot(options, data, element);
    element.dataset.requests = String(Array.from(plot.data[1] ?? [], (value) => value ?? 0).reduce((sum, value) => sum + value, 0));
    element.dataset.markers = String(markers.length);
  };

  // Drawn when it is in the page and has a width; redrawn to the page's width as it changes.
  const resize = new ResizeObserver(() => {
    if (!element.isConnected || element.clientWidth === 0) return;
    if (!plot) draw();
    else plot.setSize({ width: Math.max(280, element.clientWidth), height: 240 });
  });
  resize.observe(element);
  signal.addEventListener('abort', () => {
    resize.disconnect();
    plot?.destroy();
  });
  return element;
}

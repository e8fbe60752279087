'use client';
// Creates by outcome per hour over the last 24 h, as stacked bars in plain SVG. The same numbers are in a
// visually hidden table, so the chart is not the only way to read them.
import { exact } from './ui';

interface Hour {
  start: string;
  created: number;
  identity_lost: number;
  aborted: number;
  in_flight: number;
}

const SERIES = [
  { key: 'created', label: 'Created', color: '#1e7a3c' },
  { key: 'identity_lost', label: 'Created, identity lost', color: '#8a5a00' },
  { key: 'aborted', label: 'Aborted', color: '#a4262c' },
  { key: 'in_flight', label: 'In flight', color: '#1f5fbf' },
] as const;

const W = 480;
const H = 120;

export function CreatesChart({ hours }: { hours: Hour[] }) {
  const total = hours.reduce((n, h) => n + h.created + h.identity_lost + h.aborted + h.in_flight, 0);
  const max = Math.max(1, ...hours.map((h) => h.created + h.identity_lost + h.aborted + h.in_flight));
  const bw = W / Math.max(1, hours.length);
  return (
    <figure className="chart">
      <svg
        viewBox={`0 0 ${W} ${H}`}
        width="100%"
        height={H}
        role="img"
        aria-label={`Creates per hour over the last 24 hours: ${total} in total`}
      >
        <line x1={0} y1={H - 0.5} x2={W} y2={H - 0.5} stroke="#d9dcdf" />
        {hours.map((h, i) => {
          let y = H;
          return (
            <g key={h.start}>
              <title>{`${exact(h.start)}: ${SERIES.map((s) => `${h[s.key]} ${s.label.toLowerCase()}`).join(', ')}`}</title>
              {SERIES.map((s) => {
                const v = h[s.key];
                if (v === 0) return null;
                const height = (v / max) * (H - 8);
                y -= height;
                return (
                  <rect key={s.key} x={i * bw + 1} y={y} width={Math.max(1, bw - 2)} height={height} fill={s.color} />
                );
              })}
            </g>
          );
        })}
      </svg>
      <figcaption className="chart__legend">
        {SERIES.map((s) => (
          <span key={s.key}>
            <span className="chart__swatch" style={{ background: s.color }} aria-hidden="true" />
            {s.label}
          </span>
        ))}
        <span className="muted">· 24 h, hourly, {total} total</span>
      </figcaption>
      {/* A table ignores `overflow` and grows to its content, so hiding it by its own class left a wide
          invisible box that scrolled small screens sideways; the wrapper is a block that does clip. */}
      <div className="visually-hidden">
        <table>
          <caption>Creates per hour by outcome</caption>
          <thead>
            <tr>
              <th scope="col">Hour (UTC)</th>
              {SERIES.map((s) => (
                <th scope="col" key={s.key}>
                  {s.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {hours.map((h) => (
              <tr key={h.start}>
                <th scope="row">{exact(h.start)}</th>
                {SERIES.map((s) => (
                  <td key={s.key}>{h[s.key]}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}

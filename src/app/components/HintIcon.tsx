// The "?" next to a knob: hover or focus shows the knob's note. The note is placed with fixed positioning from
// the icon's screen rectangle, so the scrolling sidebar never clips it.
import { useState, type CSSProperties } from 'react';

const WIDTH = 280;

export function HintIcon({ note }: { note: string }) {
  const [style, setStyle] = useState<CSSProperties | null>(null);
  const show = (el: HTMLElement) => {
    const r = el.getBoundingClientRect();
    const left = Math.min(r.right + 8, window.innerWidth - WIDTH - 8);
    const top = Math.min(r.top - 4, window.innerHeight - 120);
    setStyle({ position: 'fixed', left, top, width: WIDTH });
  };
  return (
    <span
      className="hint-icon"
      tabIndex={0}
      aria-label={note}
      onMouseEnter={(e) => show(e.currentTarget)}
      onMouseLeave={() => setStyle(null)}
      onFocus={(e) => show(e.currentTarget)}
      onBlur={() => setStyle(null)}
    >
      ?
      {style && (
        <span className="tooltip" role="tooltip" style={style}>
          {note}
        </span>
      )}
    </span>
  );
}

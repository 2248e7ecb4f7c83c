// The known models of the offline catalog (src/data/models) by name, each with its download size, chat template
// family and licence, before anything is downloaded. "Load" fetches it through the hub cache like any repo id;
// choosing one also points the planner at it.
import { MODEL_CATALOG, type CatalogModel } from '../../data/models/catalog.ts';
import { formatBytes } from '../../engine/io/model-size.ts';

export function catalogLabel(m: CatalogModel): string {
  return `${m.name} · ${formatBytes(m.downloadBytes)} · ${m.chatTemplate} · ${m.license}`;
}

export function ModelCatalog(props: {
  chosen: string;
  onChoose(name: string): void;
  onLoad(m: CatalogModel): void;
  busy: boolean;
}) {
  const entry = MODEL_CATALOG.find((m) => m.name === props.chosen) ?? null;
  return (
    <div className="model-catalog" data-testid="model-catalog">
      <div className="row">
        <label
          htmlFor="catalog-model"
          title="known-good instruct models whose config.json ships with the page: sized by the planner before any download"
        >
          known model
        </label>
        <select
          id="catalog-model"
          data-testid="catalog-model"
          value={props.chosen}
          onChange={(e) => props.onChoose(e.target.value)}
        >
          <option value="">(choose)</option>
          {MODEL_CATALOG.map((m) => (
            <option key={m.name} value={m.name}>
              {catalogLabel(m)}
            </option>
          ))}
        </select>
        <button
          type="button"
          data-testid="catalog-load"
          disabled={!entry || props.busy}
          onClick={() => entry && props.onLoad(entry)}
        >
          Load
        </button>
      </div>
      {entry && (
        <p className="hint" data-testid="catalog-details">
          {entry.repo}: {(entry.parameters / 1e6).toFixed(0)}M parameters, download {formatBytes(entry.downloadBytes)} (
          {entry.weightsDtype}), chat template {entry.chatTemplate}, licence {entry.license}
        </p>
      )}
    </div>
  );
}

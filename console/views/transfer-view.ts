import { seg } from '../api.js';
import type { ConsoleContext } from '../context.js';
import { field, h } from '../dom.js';
import { statusLine } from './errors.js';

interface ImportResult {
  points_imported: number;
  points_skipped: number;
  dimension: number;
  mode: string;
}

/** Saves a blob under a name through a temporary link: the download needs the key, so no plain href. */
function save(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = h('a', { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** Export the chosen collection as a .vgdb file; import one into a collection by name. */
export function transferView(ctx: ConsoleContext): HTMLElement {
  const status = statusLine();
  const exportButton = h('button', { type: 'button', disabled: ctx.collection === null }, ctx.collection === null ? 'Choose a collection to export' : `Export ${ctx.collection}`);
  exportButton.addEventListener('click', () => {
    const name = ctx.collection!;
    ctx.api
      .download(`/collections/${seg(name)}/export`)
      .then(({ blob, filename }) => {
        save(blob, filename ?? `${name}.vgdb`);
        status.info(`Exported ${name}: ${blob.size} bytes.`);
      })
      .catch(status.error);
  });

  const file = h('input', { type: 'file', name: 'file', accept: '.vgdb', required: true });
  const target = h('input', { name: 'target', required: true, placeholder: 'collection name' });
  const mode = h('select', { name: 'mode' }, h('option', { value: 'create' }, 'create (must not exist)'), h('option', { value: 'replace' }, 'replace'), h('option', { value: 'merge' }, 'merge (keep existing ids)'));
  file.addEventListener('change', () => {
    const chosen = file.files?.[0];
    if (chosen && target.value === '') target.value = chosen.name.replace(/\.vgdb$/, '');
  });
  const importForm = h('form', { class: 'import-form', 'aria-label': 'Import' }, h('h3', {}, 'Import a .vgdb file'), field('File', file), field('Into collection', target), field('Mode', mode), h('button', { type: 'submit' }, 'Import'));
  importForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const chosen = file.files?.[0];
    if (!chosen) return;
    ctx.api
      .upload<ImportResult>(`/collections/${seg(target.value)}/import?mode=${mode.value}`, chosen)
      .then(async (r) => {
        status.info(`Imported ${r.points_imported} points into ${target.value} (${r.points_skipped} skipped, dimension ${r.dimension}, ${r.mode}).`);
        await ctx.refreshCollections();
      })
      .catch(status.error);
  });

  return h('section', { class: 'view transfer-view' }, h('h2', {}, 'Export and import'), h('p', {}, 'A collection moves as one .vgdb file: its points, vectors, payloads, labels and edges.'), exportButton, importForm, status.element);
}

// The languages of the docs' code samples (`x-codeSamples`), in the order the page shows them: one table that
// samples.ts writes the samples from, and the `docs` command's help and `npm run docs`'s log name.

/** Each sample: Redoc's `lang` and `label` (the label is what docs-site/redocly.yaml lists), and its generator's key. */
export const SAMPLE_LANGUAGES = [
  { lang: 'bash', label: 'curl', key: 'curl' },
  { lang: 'typescript', label: 'TypeScript', key: 'typescript' },
  /** Plain `fetch` (JavaScript, any runtime with fetch). */
  { lang: 'javascript', label: 'JavaScript', key: 'fetch' },
  /** Python's standard library (`urllib.request`). */
  { lang: 'python', label: 'Python', key: 'python' },
] as const satisfies ReadonlyArray<{ lang: string; label: string; key: string }>;

/** The key of a sample in an operation's samples (samples.ts `OperationSamples`). */
export type SampleKey = (typeof SAMPLE_LANGUAGES)[number]['key'];

/** `curl, TypeScript, JavaScript and Python`: the samples each operation has, for a sentence. */
export function sampleLanguageList(): string {
  const labels: string[] = SAMPLE_LANGUAGES.map((language) => language.label);
  const last = labels.pop() ?? '';
  return labels.length === 0 ? last : `${labels.join(', ')} and ${last}`;
}

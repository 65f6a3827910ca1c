/** Index templates applied to a creation request as Elasticsearch 6.8 applies them. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyTemplates, matchingTemplates, mergeDefaults, parseTemplateRequest } from '../../../services/node/cluster/index-templates.ts';

test('mergeDefaults fills what the request lacks; dynamic templates merge by name, the request first', () => {
  const content = { properties: { a: { type: 'keyword' } }, dynamic_templates: [{ s: { match: 'x' } }] };
  mergeDefaults(content, { properties: { a: { type: 'text' }, b: { type: 'long' } }, dynamic_templates: [{ t: { match: 'y' } }, { s: { match: 'z', extra: 1 } }] });
  assert.deepEqual(content, {
    properties: { a: { type: 'keyword' }, b: { type: 'long' } },
    dynamic_templates: [{ s: { match: 'x', extra: 1 } }, { t: { match: 'y' } }],
  });
});

test('templates match by pattern and apply highest order last-wins under the request', () => {
  const low = parseTemplateRequest('low', { index_patterns: ['log*'], order: 0, settings: { number_of_shards: 3, refresh_interval: '5s' }, aliases: { '{index}-all': {} } });
  const high = parseTemplateRequest('high', { index_patterns: 'logs-*', order: 2, settings: { number_of_shards: 2 } });
  const other = parseTemplateRequest('other', { index_patterns: ['metrics-*'] });
  const templates = matchingTemplates([low, high, other], 'logs-1');
  assert.deepEqual(templates.map((t) => t.name), ['high', 'low']);
  const applied = applyTemplates({ index: 'logs-1', uuid: 'u', settings_json: '{"index":{"refresh_interval":"1s"}}', mappings_json: '{}', aliases_json: '{}' }, templates);
  assert.deepEqual(JSON.parse(applied.settings_json), { 'index.number_of_shards': 2, 'index.refresh_interval': '1s' });
  assert.deepEqual(JSON.parse(applied.aliases_json), { 'logs-1-all': {} });
});

test('a template body keeps __proto__ and constructor as ordinary names', () => {
  const t = parseTemplateRequest('p', JSON.parse('{"index_patterns":["p*"],"aliases":{"__proto__":{}},"mappings":{"_doc":{"properties":{"constructor":{"type":"keyword"}}}}}'));
  const applied = applyTemplates({ index: 'p1', uuid: 'u', settings_json: '{}', mappings_json: '{}', aliases_json: '{}' }, [t]);
  assert.ok(Object.hasOwn(JSON.parse(applied.aliases_json), '__proto__'));
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

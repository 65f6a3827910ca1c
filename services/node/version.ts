/**
 * The version this server reports. Official clients check `version.number`
 * (the 6.x JavaScript client needs a 6.x number), so we report the last 6.8
 * release and Lucene 7.7.3, which 6.8.23 shipped with.
 */
export const ES_VERSION = {
  number: '6.8.23',
  build_flavor: 'oss',
  build_type: 'tar',
  build_hash: '4f67856',
  build_date: '2022-01-06T20:00:00.000000Z',
  build_snapshot: false,
  lucene_version: '7.7.3',
  minimum_wire_compatibility_version: '5.6.0',
  minimum_index_compatibility_version: '5.0.0',
} as const;

/** Shared fixtures of the mapping tests. */

/** The seed's pass-record mapping (the reference application's index). */
export const PASSINFO = {
  properties: {
    event_id: { type: 'keyword' },
    event_type: { type: 'integer' },
    land_id: { type: 'keyword' },
    land_picture: { type: 'keyword', index: false },
    pass_time: { type: 'date', format: 'yyyy-MM-dd HH:mm:ss' },
    plate: { type: 'text', analyzer: 'plate_ngram', fields: { keyword: { type: 'keyword' } } },
    plate_category: { type: 'integer' },
    plate_color: { type: 'integer' },
    plate_picture: { type: 'keyword', index: false },
    speed: { type: 'integer' },
    vehicle_category: { type: 'integer' },
    vehicle_color: { type: 'integer' },
    vehicle_length: { type: 'integer' },
  },
};

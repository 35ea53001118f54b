import { expect } from 'chai';
import { QdrantClient } from '@qdrant/js-client-rest';
import { call, useTestServer } from '../helpers/http.js';
import { refusal } from '../helpers/qdrant-refusal.js';

type Filter = Record<string, unknown>;

/** Cities at their (lat, lon); distances from Berlin by the haversine formula, rounded: Potsdam 27 km, Leipzig 149 km, Dresden 165 km, Hamburg 255 km, Munich 504 km, Warsaw 517 km, Paris 878 km. */
const CITIES = {
  berlin: { lat: 52.52, lon: 13.405 },
  potsdam: { lat: 52.3906, lon: 13.0645 },
  leipzig: { lat: 51.3397, lon: 12.3731 },
  dresden: { lat: 51.0504, lon: 13.7373 },
  hamburg: { lat: 53.5511, lon: 9.9937 },
  munich: { lat: 48.1351, lon: 11.582 },
  warsaw: { lat: 52.2297, lon: 21.0122 },
  paris: { lat: 48.8566, lon: 2.3522 },
  suva: { lat: -18.1416, lon: 178.4419 },
  apia: { lat: -13.8333, lon: -171.7667 },
  auckland: { lat: -36.8485, lon: 174.7633 },
};
const NAMES = Object.keys(CITIES) as (keyof typeof CITIES)[];
/** Point ids: a city's place in CITIES from 1; then a point holding two places (Paris and Potsdam), one with none, one on a polygon's edge (112 km from Berlin). */
const id = (name: keyof typeof CITIES): number => NAMES.indexOf(name) + 1;
const TWO_PLACES = 20;
const NO_PLACE = 21;
const ON_EDGE = 22;

const ring = (points: [number, number][]) => ({ points: points.map(([lat, lon]) => ({ lat, lon })) });
/** Around Berlin, Potsdam, Leipzig and Dresden: lat 51–53.5, lon 12–15 (ON_EDGE lies on its top edge). */
const EAST_GERMANY = ring([[51, 12], [53.5, 12], [53.5, 15], [51, 15], [51, 12]]);
/** A hole holding Berlin alone (Potsdam's lon 13.06 is west of it). */
const AROUND_BERLIN = ring([[52.3, 13.2], [52.7, 13.2], [52.7, 13.7], [52.3, 13.7], [52.3, 13.2]]);

describe('clients: geo and full-text filters as Qdrant 1.18 answers them, with @qdrant/js-client-rest', function () {
  this.timeout(30_000);
  const s = useTestServer({}, 'each');
  const client = () => new QdrantClient({ url: s.service.qdrantUrl!, checkCompatibility: false });

  const ids = async (collection: string, filter: Filter): Promise<number[]> => {
    const { points } = await client().scroll(collection, { filter, limit: 100, with_payload: false });
    return points.map((p) => p.id as number).sort((a, b) => a - b);
  };
  const near = (center: { lat: number; lon: number }, radius: number): Filter => ({ must: [{ key: 'place', geo_radius: { center, radius } }] });

  describe('geo', () => {
    beforeEach(async () => {
      const q = client();
      await q.createCollection('geo', { vectors: { size: 2, distance: 'Dot' } });
      await q.upsert('geo', {
        wait: true,
        points: [
          ...NAMES.map((name) => ({ id: id(name), vector: [1, 0], payload: { place: CITIES[name], name } })),
          { id: TWO_PLACES, vector: [0, 1], payload: { place: [CITIES.paris, CITIES.potsdam] } },
          { id: NO_PLACE, vector: [0, 1], payload: { place: 'Berlin' } },
          { id: ON_EDGE, vector: [0, 1], payload: { place: { lat: 53.5, lon: 13 } } },
        ],
      });
    });

    it('geo_radius: within the radius in metres around the centre, a point of an array counting', async () => {
      expect(await ids('geo', near(CITIES.berlin, 100_000))).to.deep.equal([id('berlin'), id('potsdam'), TWO_PLACES]);
      expect(await ids('geo', near(CITIES.berlin, 200_000)), 'ON_EDGE at 112 km').to.deep.equal([id('berlin'), id('potsdam'), id('leipzig'), id('dresden'), TWO_PLACES, ON_EDGE]);
      expect(await ids('geo', near(CITIES.berlin, 300_000)), 'Hamburg at 255 km, Warsaw at 517 km').to.include(id('hamburg')).and.not.include(id('warsaw'));
      expect(await ids('geo', near(CITIES.berlin, 0)), 'strictly below the radius').to.deep.equal([]);
    });

    it('geo_bounding_box: strictly inside, and across the antimeridian when top_left is east of bottom_right', async () => {
      const box = (top_left: object, bottom_right: object): Filter => ({ must: [{ key: 'place', geo_bounding_box: { top_left, bottom_right } }] });
      expect(await ids('geo', box({ lat: 54, lon: 9 }, { lat: 51.2, lon: 14 }))).to.deep.equal([id('berlin'), id('potsdam'), id('leipzig'), id('hamburg'), TWO_PLACES, ON_EDGE]);
      expect(await ids('geo', box({ lat: -10, lon: 170 }, { lat: -20, lon: -170 }))).to.deep.equal([id('suva'), id('apia')]);
    });

    it('geo_polygon: inside the exterior ring and outside its holes, a point on a ring not counting', async () => {
      const polygon = (interiors?: object[]): Filter => ({ must: [{ key: 'place', geo_polygon: { exterior: EAST_GERMANY, ...(interiors ? { interiors } : {}) } }] });
      expect(await ids('geo', polygon())).to.deep.equal([id('berlin'), id('potsdam'), id('leipzig'), id('dresden'), TWO_PLACES]);
      expect(await ids('geo', polygon([AROUND_BERLIN]))).to.deep.equal([id('potsdam'), id('leipzig'), id('dresden'), TWO_PLACES]);
      expect(await ids('geo', { must_not: [{ key: 'place', geo_polygon: { exterior: EAST_GERMANY } }] }), 'must_not: the rest, a value that is no geo point too').to.include.members([id('paris'), NO_PLACE, ON_EDGE]);
    });

    it('goes wherever filters go: count, query, facet, delete by filter, and the spec port', async () => {
      const q = client();
      const filter = near(CITIES.berlin, 200_000);
      expect((await q.count('geo', { filter, exact: true })).count).to.equal(6);
      const found = await q.query('geo', { query: [1, 0], filter, limit: 10, with_payload: false });
      expect(found.points.map((p) => p.id as number).sort((a, b) => a - b)).to.deep.equal([id('berlin'), id('potsdam'), id('leipzig'), id('dresden'), TWO_PLACES, ON_EDGE]);
      const { hits } = await q.facet('geo', { key: 'name', filter: near(CITIES.berlin, 100_000) });
      expect(hits.map((h) => h.value).sort()).to.deep.equal(['berlin', 'potsdam']);
      const spec = await call(s.url, 'POST', '/collections/geo/points/count', { filter: { must: [{ key: 'place', geo_polygon: { exterior: EAST_GERMANY, interiors: [AROUND_BERLIN] } }] } });
      expect(spec.body.result).to.deep.equal({ count: 4 });
      await q.delete('geo', { wait: true, filter: near(CITIES.berlin, 100_000) });
      expect(await ids('geo', near(CITIES.berlin, 200_000))).to.deep.equal([id('leipzig'), id('dresden'), ON_EDGE]);
    });

    it('declares a geo index, lists it in payload_schema, answers the same with it, and keeps it across a restart', async () => {
      const q = client();
      const before = await ids('geo', near(CITIES.berlin, 200_000));
      await q.createPayloadIndex('geo', { field_name: 'place', field_schema: 'geo', wait: true });
      // points: those holding a value at the field (README: Payload indexes), here every one.
      const schema = { place: { data_type: 'geo', points: NAMES.length + 3 } };
      expect((await q.getCollection('geo')).payload_schema).to.deep.equal(schema);
      expect(await ids('geo', near(CITIES.berlin, 200_000))).to.deep.equal(before);
      await s.restart();
      expect((await client().getCollection('geo')).payload_schema).to.deep.equal(schema);
      expect(await refusal(client().createPayloadIndex('geo', { field_name: 'place', field_schema: { type: 'geo', on_disk: true } }))).to.match(/^400 .*on_disk/);
    });

    it('refuses a bad area in Qdrant\'s words, naming where', async () => {
      const q = client();
      const scroll = (condition: object) => refusal(q.scroll('geo', { filter: { must: [{ key: 'place', ...condition }] } }));
      expect(await scroll({ geo_radius: { center: { lat: 100, lon: 13 }, radius: 1 } })).to.equal('400 filter.must[0].geo_radius.center: Wrong format of GeoPoint payload: expected `lat` = 100 within [-90;90] and `lon` = 13 within [-180;180]');
      expect(await scroll({ geo_bounding_box: { top_left: { lat: 1, lon: 190 }, bottom_right: { lat: 0, lon: 1 } } })).to.match(/^400 filter\.must\[0\]\.geo_bounding_box\.top_left: Wrong format of GeoPoint payload: .*`lon` = 190 within \[-180;180\]/);
      expect(await scroll({ geo_polygon: { exterior: ring([[1, 1], [2, 1], [1, 1]]) } })).to.equal('400 filter.must[0].geo_polygon.exterior: polygon invalid, the size must be at least 4, got 3');
      expect(await scroll({ geo_polygon: { exterior: EAST_GERMANY, interiors: [ring([[1, 1], [2, 1], [2, 2], [1, 2]])] } })).to.equal('400 filter.must[0].geo_polygon.interiors[0]: polygon invalid, the first and the last points should be the same to form a closed line');
      expect(await scroll({ geo_radius: { center: CITIES.berlin } })).to.match(/^400 filter\.must\[0\]\.geo_radius\.radius is required/);
      expect(await scroll({ geo_radius: { center: CITIES.berlin, radius: 1, unit: 'km' } })).to.match(/^400 .*geo_radius\.unit/);
    });
  });

  describe('full text', () => {
    const BODIES = ['odd numbers and even ones', 'The Quick brown fox', 'quick thinking, quicker fox!', 'a brown dog'];
    const match = (m: object): Filter => ({ must: [{ key: 'body', match: m }] });

    beforeEach(async () => {
      const q = client();
      await q.createCollection('t', { vectors: { size: 2, distance: 'Dot' } });
      await q.upsert('t', { wait: true, points: BODIES.map((body, i) => ({ id: i + 1, vector: [1, 0], payload: { body } })) });
    });

    it('without a text index: the exact substring, case and all (text_any: one of its whitespace-separated parts)', async () => {
      expect(await ids('t', match({ text: 'od' })), '"od" in "odd"').to.deep.equal([1]);
      expect(await ids('t', match({ text: 'quick' }))).to.deep.equal([3]);
      expect(await ids('t', match({ text: 'brown fox' }))).to.deep.equal([2]);
      expect(await ids('t', match({ text: 'fox quick' }))).to.deep.equal([]);
      expect(await ids('t', match({ text_any: 'Quick dog' }))).to.deep.equal([2, 4]);
      expect(await ids('t', match({ phrase: 'brown fox' }))).to.deep.equal([2]);
      expect(await ids('t', match({ phrase: 'Brown fox' }))).to.deep.equal([]);
    });

    it('with a text index: by words, lowercase (text every word, text_any one, phrase only with phrase_matching)', async () => {
      const q = client();
      await q.createPayloadIndex('t', { field_name: 'body', field_schema: 'text', wait: true });
      expect(await ids('t', match({ text: 'od' })), 'no word "od"').to.deep.equal([]);
      expect(await ids('t', match({ text: 'quick' }))).to.deep.equal([2, 3]);
      expect(await ids('t', match({ text: 'FOX quick' }))).to.deep.equal([2, 3]);
      expect(await ids('t', match({ text_any: 'Quick dog' }))).to.deep.equal([2, 3, 4]);
      expect(await ids('t', match({ phrase: 'brown fox' })), 'no positions kept: Qdrant finds nothing').to.deep.equal([]);
      await q.createPayloadIndex('t', { field_name: 'body', field_schema: { type: 'text', phrase_matching: true }, wait: true });
      expect((await q.getCollection('t')).payload_schema).to.deep.equal({ body: { data_type: 'text', params: { type: 'text', phrase_matching: true }, points: 4 } });
      expect(await ids('t', match({ phrase: 'BROWN fox' }))).to.deep.equal([2]);
      expect(await ids('t', match({ phrase: 'fox brown' }))).to.deep.equal([]);
      expect(await ids('t', match({ phrase: 'quick fox' })), 'both words, not adjacent').to.deep.equal([]);
      expect((await q.count('t', { filter: match({ text_any: 'brown' }) })).count).to.equal(2);
      await q.deletePayloadIndex('t', 'body', { wait: true });
      expect(await ids('t', match({ text: 'od' })), 'substrings again').to.deep.equal([1]);
    });

    it('reads a batch\'s pending points by the same rule', async () => {
      const q = client();
      const step = async () => {
        await q.batchUpdate('t', { wait: true, operations: [{ upsert: { points: [{ id: 9, vector: [1, 0], payload: { body: 'Quokka time' } }] } }, { delete: { filter: match({ text: 'quokka' }) } }] });
        return (await q.retrieve('t', { ids: [9] })).length;
      };
      expect(await step(), 'no "quokka" substring in "Quokka time"').to.equal(1);
      await q.createPayloadIndex('t', { field_name: 'body', field_schema: 'text', wait: true });
      expect(await step(), 'the word quokka').to.equal(0);
    });

    it('refuses a match it does not know by name', async () => {
      expect(await refusal(client().scroll('t', { filter: match({ like: 'x' }) }))).to.match(/^400 .*match/);
      const res = await call(s.url, 'POST', '/collections/t/points/count', { filter: { must: [{ key: 'body', match: { text_any: 3 } }] } });
      expect(res.status).to.equal(400);
    });
  });
});

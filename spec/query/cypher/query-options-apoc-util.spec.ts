import { expect } from 'chai';
import { compileQuery } from '../../../query/cypher/run-query.js';
import { cypherFailure, cypherGraph } from '../../helpers/cypher-graph.js';

describe('query/cypher: query options (CYPHER 5 runtime=...) and the APOC routines tools generate', () => {
  describe('CYPHER [version] [option=value ...] before the statement', () => {
    it('reads a version, options in any case and EXPLAIN or PROFILE before or after them', () => {
      const { rows } = cypherGraph();
      expect(rows('CYPHER 5 RETURN 1 AS x')).to.deep.equal([[1]]);
      expect(rows('CYPHER 25 runtime=slotted planner=COST RETURN 2 AS x')).to.deep.equal([[2]]);
      expect(rows('cypher interpretedPipesFallback=whitelisted_plans_only replan=force RETURN 3 AS x')).to.deep.equal([[3]]);
      expect(compileQuery('CYPHER 5 EXPLAIN MATCH (n) RETURN n').explain).to.equal('explain');
      expect(compileQuery('PROFILE CYPHER runtime=pipelined MATCH (n) RETURN n').explain).to.equal('profile');
    });

    it('refuses another version, an unknown option or value by name, at its position', () => {
      expect(cypherFailure(() => compileQuery('CYPHER 4.4 RETURN 1')).message).to.match(/column 8: Cypher 4\.4 is not a version this server runs: write CYPHER 5 or CYPHER 25/);
      expect(cypherFailure(() => compileQuery('CYPHER 5 runtme=slotted RETURN 1')).message).to.match(/column 10: Unsupported query option 'runtme': the options are planner, runtime, /);
      expect(cypherFailure(() => compileQuery('CYPHER runtime=fast RETURN 1')).message).to.match(/runtime=fast is not a value of that query option: it takes slotted, pipelined, parallel/);
      expect(cypherFailure(() => compileQuery('CYPHER 5')).message).to.match(/expected a clause/);
    });

    it('leaves a variable named cypher alone', () => {
      const { rows } = cypherGraph();
      expect(rows('WITH 1 AS cypher RETURN cypher')).to.deep.equal([[1]]);
    });
  });

  describe('apoc.util.validate and apoc.util.validatePredicate', () => {
    it('pass when the predicate is false or null, and fail with the message formatted as Java does, as Neo4j words it', () => {
      const { rows } = cypherGraph();
      expect(rows('CALL apoc.util.validate(false, "no %s", ["x"]) RETURN 1 AS ok')).to.deep.equal([[1]]);
      expect(rows('RETURN apoc.util.validatePredicate(null, "m", []) AS ok')).to.deep.equal([[true]]);
      const proc = cypherFailure(() => rows('UNWIND [1, 2] AS i CALL apoc.util.validate(i = 2, "%s is %d, not %S%%", ["value", i, "one"]) RETURN i'));
      expect([proc.kind, proc.detail]).to.deep.equal(['Procedure', 'ProcedureCallFailed']);
      expect(proc.message).to.include('Failed to invoke procedure `apoc.util.validate`: Caused by: java.lang.RuntimeException: value is 2, not ONE%');
      const fn = cypherFailure(() => rows('RETURN apoc.util.validatePredicate(true, "@neo4j/graphql/FORBIDDEN", [0]) AS x'));
      expect(fn.message).to.include('Failed to invoke function `apoc.util.validatePredicate`: Caused by: java.lang.RuntimeException: @neo4j/graphql/FORBIDDEN');
      expect(cypherFailure(() => rows('CALL apoc.util.validate(true, "%s and %s", ["one"])')).message).to.match(/has no argument \(1 given\)/);
    });
  });

  describe('apoc.date.convertFormat', () => {
    const convert = (text: string | null, from: string, to?: string): unknown => {
      const { rows } = cypherGraph();
      const call = to === undefined ? 'apoc.date.convertFormat($t, $f)' : 'apoc.date.convertFormat($t, $f, $to)';
      return rows(`RETURN ${call} AS v`, { t: text, f: from, to })[0]![0];
    };

    it('rewrites a DateTime between java.time ISO formatters, as @neo4j/graphql asks', () => {
      expect(convert('2024-03-31T10:00:00.5+02:00', 'iso_zoned_date_time', 'iso_offset_date_time')).to.equal('2024-03-31T10:00:00.5+02:00');
      expect(convert('2024-03-31T10:00+01:00[Europe/Paris]', 'iso_zoned_date_time', 'iso_offset_date_time')).to.equal('2024-03-31T10:00:00+02:00');
      expect(convert('2024-03-31T10:00:00Z', 'iso_date_time', 'iso_zoned_date_time')).to.equal('2024-03-31T10:00:00Z');
      expect(convert('2024-03-31T10:30:00+02:00', 'iso_offset_date_time', 'iso_instant')).to.equal('2024-03-31T08:30:00Z');
      expect(convert('2024-03-31T10:30:00', 'iso_local_date_time', 'iso_local_date')).to.equal('2024-03-31');
      expect(convert(null, 'iso_date')).to.equal(null);
    });

    it('reads and writes patterns: numbers, month and day names, 12-hour clocks, fractions and offsets', () => {
      expect(convert('2024-03-05T08:07:06Z', 'iso_date_time')).to.equal('2024-03-05');
      expect(convert('05/03/2024 8:07 PM', 'dd/MM/yyyy h:mm a', "yyyy-MM-dd'T'HH:mm")).to.equal('2024-03-05T20:07');
      expect(convert('2024-03-05', 'yyyy-MM-dd', 'EEEE d MMMM yy')).to.equal('Tuesday 5 March 24');
      expect(convert('2024-03-05 23:59:58.123456 -0530', 'yyyy-MM-dd HH:mm:ss.SSSSSS Z', 'HH:mm:ss.SSS XXX')).to.equal('23:59:58.123 -05:30');
      expect(convert('2024-03-05 12:00 +0000', 'yyyy-MM-dd HH:mm Z', 'X|xxx|Z')).to.equal('Z|+00:00|+0000');
    });

    it('fails naming the text, the format or the field that is missing', () => {
      expect(cypherFailure(() => convert('2024-13-05', 'yyyy-MM-dd')).message).to.include('Invalid value for MonthOfYear (valid values 1 - 12): 13');
      expect(cypherFailure(() => convert('2023-02-29', 'yyyy-MM-dd')).message).to.include('Invalid value for DayOfMonth (valid values 1 - 28): 29');
      expect(cypherFailure(() => convert('5.3.2024', 'yyyy-MM-dd')).message).to.include('"5.3.2024" does not read as "yyyy-MM-dd"');
      expect(cypherFailure(() => convert('2024-03-05', 'yyyy-MM-dd', 'HH:mm')).message).to.include('Unsupported field: HourOfDay');
      expect(cypherFailure(() => convert('2024-03-05', 'yyyy-MM-dd', 'yyyy[-MM]')).message).to.include('optional sections');
      expect(cypherFailure(() => convert('2024-03-05', 'yyyy-MM-dd', 'qqq')).message).to.include("pattern letter 'q'");
    });
  });
});

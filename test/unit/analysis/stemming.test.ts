import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { englishMinimalStem } from '../../../shared/engine/analysis/english-minimal-stemmer.ts';
import { porterStem } from '../../../shared/engine/analysis/porter-stemmer.ts';
import { AnalysisRegistry } from '../../../shared/engine/analysis/registry.ts';
import { snowballEnglishStem } from '../../../shared/engine/analysis/snowball-english.ts';
import { analyzeTokens, assertEsError, detailed, terms } from './token-fixtures.ts';

/** `word→stem` pairs, written out by hand from the published examples. */
function pairs(text: string): [string, string][] {
  return text
    .trim()
    .split(/\s+/)
    .map((pair) => {
      const [word, stem] = pair.split('→');
      return [word!, stem!];
    });
}

function assertStems(stem: (word: string) => string, expected: string): void {
  const cases = pairs(expected);
  assert.deepEqual(
    cases.map(([word]) => `${word}→${stem(word)}`),
    cases.map(([word, s]) => `${word}→${s}`),
  );
}

describe('Porter stemmer', () => {
  it('step 1 examples of the paper: plurals, -ed, -ing, final y', () => {
    assertStems(
      porterStem,
      `caresses→caress ponies→poni ties→ti caress→caress cats→cat feed→feed agreed→agre plastered→plaster
       bled→bled motoring→motor sing→sing conflated→conflat troubled→troubl sized→size hopping→hop tanned→tan
       falling→fall hissing→hiss fizzed→fizz failing→fail filing→file happy→happi sky→sky`,
    );
  });

  it('step 2 to 5 examples of the paper, run through the whole algorithm', () => {
    assertStems(
      porterStem,
      `relational→relat conditional→condit rational→ration valenci→valenc hesitanci→hesit digitizer→digit
       conformabli→conform radicalli→radic differentli→differ vileli→vile analogousli→analog
       vietnamization→vietnam predication→predic operator→oper feudalism→feudal decisiveness→decis
       hopefulness→hope callousness→callous formaliti→formal sensitiviti→sensit sensibiliti→sensibl
       triplicate→triplic formative→form formalize→formal electriciti→electr electrical→electr hopeful→hope
       goodness→good revival→reviv allowance→allow inference→infer airliner→airlin gyroscopic→gyroscop
       adjustable→adjust defensible→defens irritant→irrit replacement→replac adjustment→adjust
       dependent→depend adoption→adopt communism→commun activate→activ angulariti→angular
       homologous→homolog effective→effect bowdlerize→bowdler probate→probat rate→rate cease→ceas
       controll→control roll→roll generalizations→gener oscillators→oscil`,
    );
  });

  it('keeps the reference implementation departures: -logi, -bli, words of two letters', () => {
    assertStems(porterStem, 'analogi→analog possibli→possibl is→is as→as');
  });
});

describe('Snowball English (Porter2) stemmer', () => {
  it('stems the consign… part of the published sample vocabulary', () => {
    assertStems(
      snowballEnglishStem,
      `consign→consign consigned→consign consigning→consign consignment→consign consist→consist
       consisted→consist consistency→consist consistent→consist consistently→consist consisting→consist
       consists→consist consolation→consol consolations→consol consolatory→consolatori console→consol
       consoled→consol consoles→consol consolidate→consolid consolidated→consolid consolidating→consolid
       consoling→consol consolingly→consol consols→consol consonant→conson consort→consort
       consorted→consort consorting→consort conspicuous→conspicu conspicuously→conspicu
       conspiracy→conspiraci conspirator→conspir conspirators→conspir conspire→conspir conspired→conspir
       conspiring→conspir constable→constabl constables→constabl constance→constanc constancy→constanc
       constant→constant`,
    );
  });

  it('stems the knack… part of the published sample vocabulary', () => {
    assertStems(
      snowballEnglishStem,
      `knack→knack knackeries→knackeri knacks→knack knag→knag knave→knave knaves→knave knavish→knavish
       kneaded→knead kneading→knead knee→knee kneel→kneel kneeled→kneel kneeling→kneel kneels→kneel
       knees→knee knell→knell knelt→knelt knew→knew knick→knick knif→knif knife→knife knight→knight
       knightly→knight knights→knight knit→knit knits→knit knitted→knit knitting→knit knives→knive
       knob→knob knobs→knob knock→knock knocked→knock knocker→knocker knockers→knocker knocking→knock
       knocks→knock knopp→knopp knot→knot knots→knot`,
    );
  });

  it('applies the rules the algorithm page illustrates: -ies, -s, short words, y, R1 prefixes', () => {
    assertStems(
      snowballEnglishStem,
      `ties→tie cries→cri gas→gas gaps→gap kiwis→kiwi hoping→hope say→say cry→cri by→by
       generously→generous generate→generat communism→communism arsenal→arsenal`,
    );
  });

  it('has fixed stems for the exceptional words, and removes possessives', () => {
    assertStems(snowballEnglishStem, `skies→sky dying→die lying→lie ugly→ugli news→news inning→inning proceed→proceed dog's→dog 'tis→tis`);
  });
});

describe('stemming token filters', () => {
  it('snowball stems with English by default and takes the language capitalized', () => {
    assert.deepEqual(terms({ tokenizer: 'whitespace', filter: ['snowball'], text: 'generously knightly' }), ['generous', 'knight']);
    const porter = [{ type: 'snowball', language: 'porter' }];
    assert.deepEqual(terms({ tokenizer: 'whitespace', filter: porter, text: 'generously knightly' }), ['gener', 'knightli']);
  });

  it('snowball and stemmer refuse languages without a stemmer here, as Lucene refuses unknown ones', () => {
    assertEsError(
      () => analyzeTokens({ tokenizer: 'whitespace', filter: [{ type: 'snowball', language: 'german' }], text: 'x' }),
      'illegal_argument_exception',
      'Invalid stemmer class specified: German',
    );
    assertEsError(
      () => AnalysisRegistry.fromIndexSettings({ filter: { s: { type: 'stemmer', language: 'klingon' } } }),
      'illegal_argument_exception',
      'Invalid stemmer class specified: Klingon',
    );
  });

  it('porter_stem and stemmer (porter by default) use the Porter stemmer', () => {
    assert.deepEqual(terms({ tokenizer: 'whitespace', filter: ['porter_stem'], text: 'ponies relational' }), ['poni', 'relat']);
    assert.deepEqual(terms({ tokenizer: 'whitespace', filter: ['stemmer'], text: 'ponies relational' }), ['poni', 'relat']);
  });

  it('stemmer maps the English language names to their stemmers, ignoring case', () => {
    const stem = (language: string, text: string): string[] =>
      terms({ tokenizer: 'whitespace', filter: [{ type: 'stemmer', language }], text });
    assert.deepEqual(stem('English', 'generously'), ['gener']);
    assert.deepEqual(stem('porter2', 'generously'), ['generous']);
    assert.deepEqual(stem('minimal_english', 'ponies boxes toys glass'), ['pony', 'boxe', 'toy', 'glass']);
    assert.deepEqual(stem('possessive_english', "dog's DOG'S dog’s dogs"), ['dog', 'DOG', 'dog', 'dogs']);
    // No KStem here: light_english runs the Porter stemmer.
    assert.deepEqual(stem('light_english', 'jumping'), ['jump']);
  });

  it('minimal English stems plurals only (Harman S-stemmer)', () => {
    assertStems(englishMinimalStem, 'ponies→pony cats→cat cat→cat bus→bus caress→caress does→does toes→toes bees→bees days→day');
  });

  it('stemming keeps positions and offsets', () => {
    assert.deepEqual(detailed(analyzeTokens({ tokenizer: 'standard', filter: ['lowercase', 'snowball'], text: 'Knights knitting' })), [
      'knight@0[0,7]<ALPHANUM>',
      'knit@1[8,16]<ALPHANUM>',
    ]);
  });
});

describe('snowball and english analyzers', () => {
  it('snowball turns bars into bar', () => {
    assert.deepEqual(terms({ analyzer: 'snowball', text: 'bars' }), ['bar']);
  });

  it('_analyze with the snowball analyzer drops The and stems bars', () => {
    assert.deepEqual(detailed(analyzeTokens({ analyzer: 'snowball', text: 'The bars' })), ['bar@1[4,8]<ALPHANUM>']);
  });

  it('snowball removes possessives and English stop words before stemming', () => {
    assert.deepEqual(terms({ analyzer: 'snowball', text: "The 2 QUICK Brown-Foxes jumped over the lazy dog's bone." }), [
      '2', 'quick', 'brown', 'fox', 'jump', 'over', 'lazi', 'dog', 'bone',
    ]);
  });

  it('a snowball analyzer type takes language and stopwords; Porter has no default stop words', () => {
    const registry = AnalysisRegistry.fromIndexSettings({
      analyzer: {
        porter: { type: 'snowball', language: 'Porter' },
        own_stops: { type: 'snowball', stopwords: ['bars'] },
      },
    });
    assert.deepEqual(terms({ analyzer: 'porter', text: 'The generously' }, registry), ['the', 'gener']);
    assert.deepEqual(terms({ analyzer: 'own_stops', text: 'The bars' }, registry), ['the']);
  });

  it('a snowball analyzer type needs the language as Lucene names it', () => {
    assertEsError(
      () => AnalysisRegistry.fromIndexSettings({ analyzer: { a: { type: 'snowball', language: 'english' } } }),
      'illegal_argument_exception',
      'Invalid stemmer class specified: english',
    );
  });

  it('english removes possessives and stop words and stems with Porter', () => {
    assert.deepEqual(terms({ analyzer: 'english', text: "The 2 QUICK Brown-Foxes jumped over the lazy dog's bone." }), [
      '2', 'quick', 'brown', 'fox', 'jump', 'over', 'lazi', 'dog', 'bone',
    ]);
    assert.deepEqual(terms({ analyzer: 'english', text: 'generously relational' }), ['gener', 'relat']);
  });

  it('an english analyzer type leaves stem_exclusion terms unstemmed and takes stopwords', () => {
    const registry = AnalysisRegistry.fromIndexSettings({
      analyzer: { en: { type: 'english', stem_exclusion: ['running'], stopwords: ['jumps'] } },
    });
    assert.deepEqual(terms({ analyzer: 'en', text: 'The running dogs jumps' }, registry), ['the', 'running', 'dog']);
  });

  it('the indexing path gives the same terms as _analyze', () => {
    const analyzer = AnalysisRegistry.builtins.get('snowball')!;
    const seen: string[] = [];
    analyzer.analyzeInto("The Knights' knitting BARS", (term, position) => seen.push(`${term}@${position}`));
    assert.deepEqual(seen, ['knight@1', 'knit@2', 'bar@3']);
  });
});

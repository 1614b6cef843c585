import { describe, expect, test } from 'bun:test'
import {
  composeAnswer,
  definesSubject,
  definitional,
  definitionPhrase,
  notAStatement,
} from '../../../src/features/engine/compose/index'
import type { RankedPassage } from '../../../src/features/engine/rank/index'
import { contentTerms, splitSentences } from '../../../src/features/engine/text/index'

// Answers that answer (issue 34): an answer never consists of the question's own words or a heading,
// a definitional question gets the sentence that defines its subject, and an answer never starts
// with a cut-off fragment.

/** Why text's sentence `sentence` (or the first starting so) is not a statement, asked by `question`. */
function why(text: string, sentence: string, question: string) {
  const all = splitSentences(text)
  const s =
    all.find((x) => text.slice(x.start, x.end) === sentence) ??
    all.find((x) => text.slice(x.start, x.end).startsWith(sentence))!
  expect(s).toBeDefined()
  return notAStatement(text, s, 0, text.length, new Set(contentTerms(question)))
}

/** A passage of `text` whose sentences are ranked by `score` (sentences it does not name score 0). */
function passage(text: string, score: (sentence: string) => number): RankedPassage<string> {
  const sentences = splitSentences(text)
    .map((s) => ({ ...s, score: score(text.slice(s.start, s.end)), hit: 1, typeOk: false }))
    .sort((a, b) => b.score - a.score)
  return { ref: 'doc', ordinal: 0, text, start: 0, end: text.length, score: 1, sentences }
}

const query = (question: string) => ({
  weights: new Map(contentTerms(question).map((t) => [t, 1])),
  want: 0,
  defines: definitional(question),
})

// The Haystack page as its HTML is extracted: a menu, then the heading that is the question.
const HAYSTACK = `- What is Haystack?
- Quick Start
- Demo

What is Haystack?

Haystack is the open source Python framework by deepset for building custom apps with large language models (LLMs). It lets you quickly try out the latest models.

Building with Haystack

Haystack offers comprehensive tooling for developing NLP systems.`

// A paper's title broken over two lines by its PDF, then its abstract.
const LAYOUT_PARSER = `LayoutParser: A Unified Toolkit for Deep
Learning Based Document Image Analysis

Abstract. Recent advances in document image analysis (DIA) have been primarily driven by neural networks. This paper introduces LayoutParser, an open-source library for streamlining the usage of DL in DIA research and applications. We show LayoutParser can be applied in large-scale digitization projects.`

describe('what is not a statement', () => {
  test('a heading that is the question, a menu item and a short title are not statements', () => {
    expect(why(HAYSTACK, 'What is Haystack?', 'What is Haystack?')).toBe('question')
    expect(why(HAYSTACK, '- What is Haystack?', 'What is Haystack?')).toBe('question')
    expect(why(HAYSTACK, 'Building with Haystack', 'What is Haystack?')).toBe('heading')
    expect(why(HAYSTACK, '- Quick Start', 'What is Haystack?')).toBe('heading')
    expect(
      why('GALAXY GAMING, INC.\n\nWe are a gaming company.', 'GALAXY', 'Who founded Galaxy Gaming?'),
    ).toBe('heading')
  })

  test("a title broken over two lines is a heading, whichever line holds the question's word", () => {
    expect(why(LAYOUT_PARSER, 'LayoutParser: A Unified', 'What is LayoutParser?')).toBe('heading')
  })

  test("a sentence made only of the question's words adds nothing", () => {
    expect(why('Tesla died. He was 86.', 'Tesla died.', 'When did Tesla die?')).toBe('restates')
  })

  test('a sentence cut at its start or with no end where it stops is cut off', () => {
    expect(
      why('Figure 3\n\nof the engine is a bytecode interpreter written in C++.', 'of the', 'What is it?'),
    ).toBe('cut')
    const unfinished =
      'Speedup vs. a baseline JavaScript interpreter for our trace-based JIT compiler, Apple’s SquirrelFish Extreme'
    expect(why(unfinished, 'Speedup', 'What is SquirrelFish Extreme?')).toBe('cut')
  })

  test('statements, table rows, list items and code are answers', () => {
    expect(why(HAYSTACK, 'Haystack is the open', 'What is Haystack?')).toBeNull()
    expect(
      why(
        'species: Adelie; island: Dream\nspecies: Gentoo; island: Biscoe',
        'species: Adelie',
        'Which species?',
      ),
    ).toBeNull()
    expect(
      why(
        '- Semantic search on a large collection of documents\n- Chatbots',
        '- Semantic',
        'What can you build?',
      ),
    ).toBeNull()
    expect(
      why('```bash\npip install farm-haystack\n```', '```bash', 'What command installs Haystack?'),
    ).toBeNull()
    // A question quoted in a statement, and a statement closed by a reference or page mark.
    expect(
      why('Thesis 86 asks: "Why does the pope build the basilica?"', 'Thesis', 'Which thesis?'),
    ).toBeNull()
    expect(why('He was elected in 1805.:4–5:24 Then he left.', 'He was', 'When was he elected?')).toBeNull()
  })
})

describe('sentences', () => {
  const spans = (text: string) => splitSentences(text).map((s) => text.slice(s.start, s.end))

  test('a wrapped line that began by ending a sentence is not a heading', () => {
    const text = 'We built it for the Machine (4). SpiderMonkey is the JavaScript\nVM embedded in Firefox.'
    expect(spans(text)).toEqual([
      'We built it for the Machine (4).',
      'SpiderMonkey is the JavaScript\nVM embedded in Firefox.',
    ])
  })

  test('a reference mark after a sentence end closes the sentence', () => {
    expect(spans('It was signed in 1978.[citation needed] On November 4 it began.')).toEqual([
      'It was signed in 1978.[citation needed]',
      'On November 4 it began.',
    ])
  })
})

describe('definitional questions', () => {
  test('"what is X", "who is X", "what does X do" ask for a definition; facts about X do not', () => {
    expect(definitional('What is Haystack?')?.subject).toEqual(['haystack'])
    expect(definitional('What are pipelines in Haystack?')?.subject).toEqual(['pipelin'])
    expect(definitional('What does the Haystack Agent do?')?.subject).toEqual(['haystack', 'agent'])
    expect(definitional('Who is Todd Cravens?')?.subject).toEqual(['todd', 'craven'])
    for (const q of [
      'Who is Haystack for?',
      'What is the capital of France?',
      'Who was RCA president in 1942?',
      'What is the largest city?',
      "What was Shrewsbury's conclusion?",
      'What is a fundamentalist interpretation of Islam called?',
      'How does Haystack work?',
    ])
      expect(definitional(q)).toBeNull()
  })

  test('a sentence defines its subject by a copula, an apposition or a naming; else it may have it as subject', () => {
    const d = definitional('What is Haystack?')!
    const level = (s: string) => definesSubject(s, 0, s.length, d)
    expect(level('Haystack is the open source Python framework by deepset.')).toBe(2)
    expect(level('This paper introduces Haystack, an open-source library.')).toBe(2)
    expect(level('A framework for search is called Haystack.')).toBe(2)
    expect(level('Haystack offers comprehensive tooling.')).toBe(1)
    expect(level('At the core of Haystack are its components.')).toBe(0)
    // The subject inside another phrase is not defined by the comma after it.
    const bronto = definitional('What is a bronto?')!
    const might = 'Possessing the might of three brontos, the cretahl charged their prey.'
    expect(definesSubject(might, 0, might.length, bronto)).toBe(0)
  })

  test("a definition's short answer is its phrase up to the first clause boundary, when short", () => {
    const phrase = (q: string, s: string) => definitionPhrase(s, definitional(q)!)
    expect(phrase('What is tamoxifen?', 'Tamoxifen is known as an anti-oestrogen drug.')).toBe(
      'an anti-oestrogen drug',
    )
    expect(
      phrase(
        'What is Engineering News-Record?',
        'Engineering News-Record (ENR), a trade magazine for the construction industry, ranks firms.',
      ),
    ).toBe('a trade magazine for the construction industry')
    // Longer than a short answer, and cutting it would leave a fragment.
    expect(
      phrase(
        'What is Haystack?',
        'Haystack is the open source Python framework by deepset for building custom apps with large language models.',
      ),
    ).toBeNull()
  })
})

describe('composed answers answer', () => {
  test('"What is Haystack?" is answered by the defining sentence, not by the heading that repeats it', () => {
    // Ranking puts the heading first: it holds the question's only word and nothing else.
    const p = passage(HAYSTACK, (s) => (s.includes('What is Haystack?') ? 9 : s.includes('Haystack') ? 5 : 0))
    const { answer } = composeAnswer([p], query('What is Haystack?'))
    expect(answer.startsWith('Haystack is the open source Python framework by deepset')).toBe(true)
    expect(answer).not.toContain('What is Haystack?')
    expect(answer).not.toContain('Quick Start')
  })

  test('an answer does not start with the first line of a broken title', () => {
    const p = passage(LAYOUT_PARSER, (s) =>
      s.startsWith('LayoutParser:') ? 9 : s.includes('LayoutParser') ? 5 : 1,
    )
    const { answer } = composeAnswer([p], query('What is LayoutParser?'))
    expect(answer).toStartWith('This paper introduces LayoutParser, an open-source library')
    expect(answer).not.toContain('Toolkit for Deep')
  })

  test('a heading is answered by the statement it heads, and one that heads none is not quoted', () => {
    const text = 'Tamoxifen\nTamoxifen is known as an anti-oestrogen drug. It is taken daily.'
    const p = passage(text, (s) => (s === 'Tamoxifen' ? 9 : s.includes('Tamoxifen') ? 4 : 0))
    expect(composeAnswer([p], query('What is tamoxifen?')).answer).toBe(
      'Tamoxifen is known as an anti-oestrogen drug. [1]',
    )
    const bare = passage('Tamoxifen', () => 9)
    expect(composeAnswer([bare], query('What is tamoxifen?')).answer).toBe('')
  })
})

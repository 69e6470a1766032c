/**
 * A trie of topic binding keys. Words are separated by "."; "*" matches exactly one word and
 * "#" matches zero or more. Matching walks the trie word by word, so its cost depends on the
 * routing key's length and the wildcards on the path, not on the number of bindings: no regex
 * and no scan of all bindings per message.
 */
export class TopicTrie<T> {
  private readonly root = new TrieNode<T>();

  add(bindingKey: string, value: T): void {
    let node = this.root;
    for (const word of splitWords(bindingKey)) node = node.child(word, true)!;
    node.values.push(value);
  }

  remove(bindingKey: string, value: T): void {
    const path: Array<[TrieNode<T>, string]> = [];
    let node: TrieNode<T> | undefined = this.root;
    for (const word of splitWords(bindingKey)) {
      path.push([node, word]);
      node = node.child(word, false);
      if (!node) return;
    }
    const i = node.values.indexOf(value);
    if (i >= 0) node.values.splice(i, 1);
    // Prune empty nodes bottom-up so the trie does not grow with binding churn.
    for (let k = path.length - 1; k >= 0 && node.isEmpty(); k--) {
      const [parent, word] = path[k]!;
      parent.drop(word);
      node = parent;
    }
  }

  match(routingKey: string, emit: (value: T) => void): void {
    walk(this.root, splitWords(routingKey), 0, emit);
  }
}

/** RabbitMQ splits "" into zero words, so "#" matches the empty key and "*" does not. */
function splitWords(key: string): string[] {
  return key === "" ? [] : key.split(".");
}

class TrieNode<T> {
  readonly values: T[] = [];
  private words: Map<string, TrieNode<T>> | null = null;
  private star: TrieNode<T> | null = null;
  hash: TrieNode<T> | null = null;

  child(word: string, create: boolean): TrieNode<T> | undefined {
    if (word === "*") {
      if (!this.star && create) this.star = new TrieNode();
      return this.star ?? undefined;
    }
    if (word === "#") {
      if (!this.hash && create) this.hash = new TrieNode();
      return this.hash ?? undefined;
    }
    let n = this.words?.get(word);
    if (!n && create) {
      this.words ??= new Map();
      this.words.set(word, (n = new TrieNode()));
    }
    return n;
  }

  literal(word: string): TrieNode<T> | undefined {
    return this.words?.get(word);
  }

  starChild(): TrieNode<T> | null {
    return this.star;
  }

  drop(word: string): void {
    if (word === "*") this.star = null;
    else if (word === "#") this.hash = null;
    else this.words?.delete(word);
  }

  isEmpty(): boolean {
    return this.values.length === 0 && !this.star && !this.hash && (!this.words || this.words.size === 0);
  }
}

function walk<T>(node: TrieNode<T>, words: string[], i: number, emit: (value: T) => void): void {
  const hash = node.hash;
  if (hash) {
    // "#" consumes any number of words (including none): try every split point.
    for (let j = i; j <= words.length; j++) walk(hash, words, j, emit);
  }
  if (i === words.length) {
    for (let k = 0; k < node.values.length; k++) emit(node.values[k]!);
    return;
  }
  const lit = node.literal(words[i]!);
  if (lit) walk(lit, words, i + 1, emit);
  const star = node.starChild();
  if (star) walk(star, words, i + 1, emit);
}

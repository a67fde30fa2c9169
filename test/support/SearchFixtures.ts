/**
 * Answers of the search back-ends in their own wire formats (fields as their API references
 * describe them, trimmed to what a page of results carries), for the fake back-ends.
 */

/** SearXNG `GET /search?format=json`. */
export const searxngAnswer = {
  query: "river otters",
  number_of_results: 0,
  results: [
    {
      url: "https://en.wikipedia.org/wiki/Otter",
      title: "Otter - Wikipedia",
      content: "Otters are carnivorous mammals in the subfamily Lutrinae.",
      engine: "wikipedia",
      parsed_url: ["https", "en.wikipedia.org", "/wiki/Otter", "", "", ""],
      template: "default.html",
      engines: ["wikipedia", "duckduckgo"],
      positions: [1, 2],
      publishedDate: "2024-02-10T00:00:00",
      score: 4,
      category: "general"
    },
    {
      url: "https://otters.example/facts",
      title: "River otter facts",
      content: "Eurasian otters live along rivers &amp; lakes.",
      engine: "duckduckgo",
      parsed_url: ["https", "otters.example", "/facts", "", "", ""],
      template: "default.html",
      engines: ["duckduckgo"],
      positions: [3],
      publishedDate: null,
      score: 1,
      category: "general"
    },
    {
      url: "https://third.example/",
      title: "A third result",
      content: "Cut by the limit.",
      engine: "bing",
      engines: ["bing"],
      positions: [4],
      score: 0.5,
      category: "general"
    }
  ],
  answers: [],
  corrections: [],
  infoboxes: [],
  suggestions: ["sea otter"],
  unresponsive_engines: []
}

/** Brave Search `GET /res/v1/web/search`. */
export const braveAnswer = {
  type: "search",
  query: { original: "river otters", more_results_available: true },
  mixed: { type: "mixed", main: [{ type: "web", index: 0, all: false }] },
  web: {
    type: "search",
    family_friendly: true,
    results: [
      {
        type: "search_result",
        title: "Otter - Wikipedia",
        url: "https://en.wikipedia.org/wiki/Otter",
        is_source_local: false,
        is_source_both: false,
        description: "<strong>Otters</strong> are carnivorous mammals in the subfamily Lutrinae.",
        page_age: "2024-02-10T08:30:00",
        age: "February 10, 2024",
        language: "en",
        family_friendly: true,
        meta_url: { scheme: "https", netloc: "en.wikipedia.org", hostname: "en.wikipedia.org", path: "› wiki › Otter" }
      },
      {
        type: "search_result",
        title: "River otter facts &amp; figures",
        url: "https://otters.example/facts",
        description: "How <strong>river otters</strong> live.",
        language: "en",
        family_friendly: true
      }
    ]
  }
}

/** Tavily `POST /search`. */
export const tavilyAnswer = {
  query: "river otters",
  follow_up_questions: null,
  answer: null,
  images: [],
  results: [
    {
      title: "Otter - Wikipedia",
      url: "https://en.wikipedia.org/wiki/Otter",
      content: "Otters are carnivorous mammals in the subfamily Lutrinae.",
      score: 0.91,
      raw_content: null
    },
    {
      title: "Otters return to the river",
      url: "https://news.example/otters",
      content: "A survey found otters on all three rivers.",
      score: 0.84,
      raw_content: null,
      published_date: "Sat, 10 Feb 2024 09:00:00 GMT"
    }
  ],
  response_time: 1.02,
  request_id: "123e4567-e89b-12d3-a456-426614174111"
}

/** Exa `POST /search` with highlights. */
export const exaAnswer = {
  requestId: "b5947044c4b78efa9552a7c89b306d95",
  resolvedSearchType: "neural",
  results: [
    {
      id: "https://en.wikipedia.org/wiki/Otter",
      title: "Otter - Wikipedia",
      url: "https://en.wikipedia.org/wiki/Otter",
      publishedDate: "2024-02-10T00:00:00.000Z",
      author: null,
      score: 0.38,
      highlights: ["Otters are carnivorous mammals.", "They live near water."],
      highlightScores: [0.5, 0.4]
    },
    {
      id: "https://otters.example/facts",
      title: "River otter facts",
      url: "https://otters.example/facts",
      publishedDate: null,
      author: "Otter Society",
      text: "How river otters live."
    }
  ],
  searchType: "neural",
  costDollars: { total: 0.005 }
}

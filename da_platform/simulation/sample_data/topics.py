"""The word lists and sentence templates the sample generator composes its questions from.

Each :class:`Topic` is a family of non-factoid questions ("How do you look after a basil plant
indoors?") whose answers are a few key points. A point is one sentence template with a slot; a
question's facts fill every slot with one value. Each point has three wordings: the first
reference uses the first, the second reference the second, and a good paraphrasing system the
third. A wrong answer is the same point with another value of the slot. All text is written
here; nothing is downloaded.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Point:
    """One key point of an answer: three wordings and a yes/no question about it."""

    slot: str
    wordings: tuple[str, str, str]
    ask: str


@dataclass(frozen=True)
class Topic:
    """A family of questions about interchangeable subjects, in one language."""

    language: str
    subjects: tuple[str, ...]
    questions: tuple[str, ...]
    slots: dict[str, tuple[str, ...]]
    points: tuple[Point, ...]
    entity_question: str
    entities: tuple[str, ...]
    entity_wordings: tuple[str, str, str]


@dataclass(frozen=True)
class Language:
    """What a language needs besides its topics: sentence joining and the fixed phrases."""

    sentence_separator: str
    word_separator: str
    yes: tuple[str, str, str]
    no: tuple[str, str, str]
    depends: tuple[str, str, str]
    hedges: tuple[str, ...]
    echoes: tuple[str, ...]
    salad: tuple[str, ...]
    context_openings: tuple[str, ...]


PLANTS = Topic(
    language="en",
    subjects=("basil", "mint", "rosemary", "peace lily", "spider plant", "snake plant", "aloe vera",
              "fiddle-leaf fig", "orchid", "pothos", "lavender", "jade plant"),
    questions=("How do you look after {a_s} plant indoors?", "What does {a_s} plant need to grow well?",
               "How can I keep my {s} healthy?", "What is the best way to care for {a_s} plant?"),
    slots={
        "light": ("bright indirect light", "a few hours of direct morning sun", "full sun on a south-facing sill",
                  "partial shade", "filtered light behind a thin curtain"),
        "water": ("when the top two centimetres of soil are dry", "about once a week",
                  "only after the soil has dried out completely", "little and often so the soil stays moist",
                  "from below by standing the pot in a saucer"),
        "soil": ("a free-draining cactus mix", "peat-free compost with added perlite", "a chunky bark mix",
                 "loam-based compost", "ordinary multipurpose compost"),
        "feed": ("a balanced liquid feed every two weeks in summer", "a high-potash feed once a month",
                 "slow-release pellets each spring", "a weak seaweed feed with every other watering"),
        "pest": ("aphids", "spider mites", "mealybugs", "fungus gnats", "scale insects", "whitefly"),
    },
    points=(
        Point("light", ("The {s} grows best in {light}.", "Give your {s} {light}.",
                        "Place the {s} where it gets {light}."), "Can the {s} grow in {light}?"),
        Point("water", ("Water it {water}.", "You should water the {s} {water}.",
                        "Only water the plant {water}."), "Should you water the {s} {water}?"),
        Point("soil", ("Pot it in {soil}.", "It needs {soil} so that the roots do not rot.",
                       "Use {soil} when you repot it."), "Is {soil} right for the {s}?"),
        Point("feed", ("Feed it with {feed}.", "Give the {s} {feed}.", "It does well with {feed}."),
              "Does the {s} need {feed}?"),
        Point("pest", ("Check the leaves regularly for {pest}.", "Watch out for {pest}, which weaken the plant.",
                       "Keep an eye on the undersides of the leaves for {pest}."), "Do {pest} attack the {s}?"),
    ),
    entity_question="Which fertiliser works best for {a_s} plant?",
    entities=("GreenPeak 10-10-10", "Bloomwell Tonic", "RootRise Granules", "Leafy Gold Liquid",
              "Terra Vita Pellets"),
    entity_wordings=("{e} works best for the {s}.", "The best choice is {e}.", "I would use {e} for the {s}."),
)

COOKING = Topic(
    language="en",
    subjects=("risotto", "pancakes", "tomato soup", "roast chicken", "banana bread", "fried rice", "omelette",
              "lentil curry", "pizza dough", "apple pie", "scrambled eggs", "vegetable stew"),
    questions=("What is the secret to good {s}?", "How do you make {s} taste better?",
               "Why does my {s} never turn out right?", "What should I pay attention to when making {s}?"),
    slots={
        "ingredient": ("fresh, good-quality ingredients", "ripe seasonal produce", "butter instead of oil",
                       "a homemade stock", "freshly ground spices"),
        "technique": ("cook it over a low, steady heat", "stir it as little as possible",
                      "weigh the ingredients rather than using cups", "preheat the pan properly",
                      "rest the mixture for ten minutes before cooking"),
        "seasoning": ("season it in stages and taste as you go", "add a squeeze of lemon at the end",
                      "finish it with fresh herbs", "use a pinch more salt than you think"),
        "timing": ("take it off the heat a minute early", "let it rest before serving",
                   "keep the oven door closed until the end", "serve it straight away"),
    },
    points=(
        Point("ingredient", ("Start with {ingredient}.", "Use {ingredient}.", "Good {s} begins with {ingredient}."),
              "Do you need {ingredient} for {s}?"),
        Point("technique", ("The key technique is to {technique}.", "Make sure you {technique}.",
                            "Always {technique}."), "Should you {technique} when making {s}?"),
        Point("seasoning", ("For flavour, {seasoning}.", "Remember to {seasoning}.",
                            "To improve the taste, {seasoning}."), "When making {s}, should you {seasoning}?"),
        Point("timing", ("Timing matters: {timing}.", "When it is nearly done, {timing}.", "Finally, {timing}."),
              "When making {s}, is it better to {timing}?"),
    ),
    entity_question="Which cookbook explains {s} best?",
    entities=("Kitchen Basics by Mara Linde", "The Slow Pan", "Everyday Heat", "Salt and Patience",
              "The Home Cook's Notebook"),
    entity_wordings=("{e} explains {s} best.", "The clearest guide is {e}.", "I would read {e} to learn {s}."),
)

FITNESS = Topic(
    language="en",
    subjects=("running", "swimming", "cycling", "yoga", "rowing", "weight training", "climbing", "tennis",
              "hiking", "skipping", "dancing", "martial arts"),
    questions=("How should a beginner start {s}?", "What are the most important tips for {s}?",
               "How can I get better at {s} without getting injured?", "What do I need to know before taking up {s}?"),
    slots={
        "gear": ("a pair of well-fitted shoes", "a simple heart-rate monitor", "comfortable breathable clothing",
                 "a good water bottle", "a cheap second-hand kit"),
        "rhythm": ("two short sessions a week", "three sessions a week with a rest day in between",
                   "twenty minutes every other day", "one longer session at the weekend"),
        "warmup": ("five minutes of brisk walking", "gentle dynamic stretches", "a slow easy version of the movement",
                   "ten minutes of light mobility work"),
        "progress": ("add no more than ten percent each week", "increase the length of a session before its intensity",
                     "keep a simple training diary", "join a beginners' group or class"),
        "mistake": ("doing too much in the first week", "skipping rest days",
                    "copying the training of experienced athletes", "ignoring sharp pain"),
    },
    points=(
        Point("gear", ("Start with {gear}.", "All you really need at first is {gear}.", "Get {gear} before anything else."),
              "Do you need {gear} to start {s}?"),
        Point("rhythm", ("Aim for {rhythm}.", "Plan {rhythm} to begin with.", "A good rhythm is {rhythm}."),
              "Is {rhythm} enough for a beginner in {s}?"),
        Point("warmup", ("Warm up with {warmup}.", "Always begin with {warmup}.", "Before each session, do {warmup}."),
              "Is {warmup} a good warm-up for {s}?"),
        Point("progress", ("To progress safely, {progress}.", "Build up slowly: {progress}.", "It helps to {progress}."),
              "Should a beginner in {s} {progress}?"),
        Point("mistake", ("The most common mistake is {mistake}.", "Avoid {mistake}.",
                          "Many beginners get hurt by {mistake}."), "Is {mistake} a problem for beginners in {s}?"),
    ),
    entity_question="Which app is best for tracking {s}?",
    entities=("StrideLog", "PaceMate", "FitTrail", "MoveNote", "Cadence Pro"),
    entity_wordings=("{e} is the best app for tracking {s}.", "I recommend {e}.", "Try {e} to keep track of your {s}."),
)

HOME = Topic(
    language="en",
    subjects=("kitchen sink", "shower drain", "washing machine", "dishwasher", "fridge", "window frames",
              "bathroom extractor fan", "radiator", "front door", "garden tap", "tumble dryer", "boiler"),
    questions=("How do I maintain the {s} so that it lasts?", "What should I do when the {s} starts causing problems?",
               "How can I prevent problems with my {s}?", "What is the right way to look after the {s}?"),
    slots={
        "clean": ("clean it with warm water and white vinegar once a month", "wipe it dry after every use",
                  "brush away the dirt every week", "run it empty on a hot setting"),
        "check": ("check the seals for cracks", "look for rust around the fittings", "listen for new rattling noises",
                  "check that nothing is blocking the drain"),
        "fix": ("tighten any loose screws", "replace the worn washer", "clear the filter",
                "reseal the edges with silicone"),
        "expert": ("water is leaking onto the floor", "you smell gas or burning",
                   "the problem comes back within a week", "you see a crack in the frame"),
    },
    points=(
        Point("clean", ("Regularly {clean}.", "The simplest care is to {clean}.", "You should {clean}."),
              "To look after the {s}, should you {clean}?"),
        Point("check", ("Every few months, {check}.", "Make it a habit to {check}.", "It is worth taking time to {check}."),
              "For the {s}, is it worth it to {check}?"),
        Point("fix", ("Most small faults go away if you {fix}.", "Often you only need to {fix}.", "Try to {fix} first."),
              "Can you solve most faults of the {s} if you {fix}?"),
        Point("expert", ("Call a professional if {expert}.", "Get expert help when {expert}.",
                         "If {expert}, stop and phone a technician."), "Should you call a professional if {expert}?"),
    ),
    entity_question="Which cleaning product is best for the {s}?",
    entities=("Brightwell Descaler", "ClearFlow Gel", "CitraClean Spray", "Homeguard Foam", "PureRinse Tablets"),
    entity_wordings=("{e} is the best product for the {s}.", "Use {e}.", "I would clean the {s} with {e}."),
)

PLANTS_ZH = Topic(
    language="zh",
    subjects=("绿萝", "吊兰", "薄荷", "芦荟", "仙人掌", "茉莉", "月季", "文竹", "君子兰", "多肉"),
    questions=("在室内怎样养好{s}？", "{s}需要怎样的照顾才能长得好？", "养{s}有哪些要点？"),
    slots={
        "light": ("明亮的散射光", "早上几个小时的直射阳光", "朝南窗台上的充足阳光", "半阴的环境"),
        "water": ("见干见湿", "每周浇一次", "等土壤完全干透再浇", "少量多次"),
        "soil": ("疏松透气的颗粒土", "加了珍珠岩的营养土", "腐叶土和河沙的混合土", "普通园土"),
        "feed": ("生长季每两周施一次稀薄液肥", "每月施一次磷钾肥", "春天放一些缓释肥", "冬天完全不施肥"),
        "pest": ("蚜虫", "红蜘蛛", "介壳虫", "小黑飞", "白粉虱"),
    },
    points=(
        Point("light", ("{s}最适合放在{light}下。", "给{s}提供{light}。", "把{s}放在有{light}的地方。"),
              "{s}能在{light}下生长吗？"),
        Point("water", ("浇水的原则是{water}。", "给{s}浇水要{water}。", "{s}的浇水方式应该是{water}。"),
              "{s}浇水应该{water}吗？"),
        Point("soil", ("盆土要用{soil}。", "{s}需要{soil}，这样根部不容易腐烂。", "换盆时选用{soil}。"),
              "{s}适合用{soil}吗？"),
        Point("feed", ("施肥方面，{feed}。", "{s}的施肥方法是{feed}。", "建议{feed}。"), "{s}需要{feed}吗？"),
        Point("pest", ("要经常检查叶片上有没有{pest}。", "注意防治{pest}，它们会削弱植株。", "留意叶子背面是否出现{pest}。"),
              "{pest}会危害{s}吗？"),
    ),
    entity_question="哪种肥料最适合{s}？",
    entities=("绿峰复合肥", "花乐营养液", "根旺缓释颗粒", "叶金液肥", "沃土有机肥"),
    entity_wordings=("{e}最适合{s}。", "最好的选择是{e}。", "我会给{s}用{e}。"),
)

STUDY_ZH = Topic(
    language="zh",
    subjects=("英语单词", "数学公式", "历史年代", "化学方程式", "古诗词", "编程语言", "乐理知识", "地理知识"),
    questions=("怎样才能高效地学习{s}？", "学习{s}有什么好方法？", "为什么我总是记不住{s}？"),
    slots={
        "method": ("间隔重复", "主动回忆", "把内容讲给别人听", "画思维导图", "多做练习题"),
        "time": ("每天固定学习二十分钟", "早上头脑清醒的时候学习", "睡前复习一遍", "每周留出一整块时间"),
        "place": ("关掉手机通知", "找一个安静的地方", "和同学一起学习", "准备好所有资料"),
        "mistake": ("只看不练", "临时抱佛脚", "一次学太多内容", "从来不复习"),
    },
    points=(
        Point("method", ("最有效的方法是{method}。", "可以试试{method}。", "学习{s}时要多用{method}。"),
              "{method}对学习{s}有帮助吗？"),
        Point("time", ("时间安排上，最好{time}。", "建议{time}。", "坚持{time}效果最好。"), "学习{s}应该{time}吗？"),
        Point("place", ("学习之前先{place}。", "要{place}，这样更容易集中注意力。", "{place}能让你更专注。"),
              "学习{s}时需要{place}吗？"),
        Point("mistake", ("最常见的错误是{mistake}。", "一定要避免{mistake}。", "很多人学不好是因为{mistake}。"),
              "{mistake}会影响学习{s}吗？"),
    ),
    entity_question="学习{s}用哪个应用最好？",
    entities=("记忆通", "学习伴侣", "知识卡片", "每日一练", "脑力星球"),
    entity_wordings=("学习{s}最好用{e}。", "推荐使用{e}。", "我会用{e}来学{s}。"),
)

TOPICS = {"en": (PLANTS, COOKING, FITNESS, HOME), "zh": (PLANTS_ZH, STUDY_ZH)}

LANGUAGES = {
    "en": Language(
        sentence_separator=" ",
        word_separator=" ",
        yes=("Yes.", "Yes, indeed.", "Yes, generally."),
        no=("No.", "No, not really.", "No, that is not right."),
        depends=("It depends.", "That depends on the situation.", "It depends on the conditions."),
        hedges=("Results vary from case to case.", "Everyone's situation is a little different.",
                "Experience will teach you the rest.", "There is no single rule that always works."),
        echoes=("You are asking: {q} There are many opinions about this, and the answer depends on your situation.",
                "That is a good question. {q} It is hard to say in general, so ask someone with experience.",
                "Many people wonder about this. {q} The answer can be different for everyone."),
        salad=("harbour", "violet", "algebra", "pigeon", "carpet", "thunder", "ledger", "marble", "orbit", "tulip",
               "satchel", "glacier", "pepper", "lantern", "voltage", "saddle", "quartz", "meadow", "trumpet", "parcel",
               "cobalt", "wizard", "pylon", "sonnet", "biscuit", "canyon", "ferry", "gravel", "helmet", "igloo",
               "jigsaw", "kettle", "lobster", "mosaic", "nectar", "oyster", "puzzle", "quiver", "rocket", "spindle",
               "tundra", "umbrella", "velvet", "walrus", "yodel", "zipper", "anchor", "blizzard", "candle", "dolphin",
               "the", "of", "and", "is", "with", "under", "purple", "quickly", "never", "blue"),
        context_openings=("Notes on {s}:", "A short guide to {s}.", "From a forum thread about {s}:"),
    ),
    "zh": Language(
        sentence_separator="",
        word_separator="",
        yes=("是的。", "是的，没错。", "对，一般来说是这样。"),
        no=("不是。", "不是这样的。", "不，并不是。"),
        depends=("看情况。", "这要视情况而定。", "要看具体情况。"),
        hedges=("具体效果因人而异。", "每个人的情况都不太一样。", "其余的需要慢慢积累经验。", "没有一条规则永远适用。"),
        echoes=("你问的是：{q}这个问题有很多不同的看法，答案取决于你的具体情况。",
                "这是个好问题。{q}很难一概而论，最好问问有经验的人。",
                "很多人都想知道这个。{q}每个人的答案可能都不一样。"),
        salad=("港口", "紫色", "代数", "鸽子", "地毯", "雷声", "账本", "大理石", "轨道", "郁金香", "书包", "冰川",
               "胡椒", "灯笼", "电压", "马鞍", "石英", "草地", "喇叭", "包裹", "海豚", "火箭", "拼图", "水壶", "龙虾",
               "的", "了", "和", "在", "很", "快", "蓝", "从不"),
        context_openings=("关于{s}的笔记：", "{s}简明指南。", "摘自一个关于{s}的论坛帖子："),
    ),
}

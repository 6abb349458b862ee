"""A small bilingual test set for looking at the worker pages (screenshots, browser tests).

Ten questions with a context passage and a reference, in English or Simplified Chinese, answered by
seven systems whose answers are the reference reworded, cut short, padded or wrong. ``long=True``
makes every reference and answer about 750 characters (a long answer on every screen).
"""
from __future__ import annotations

from sqlalchemy.orm import Session

from da_platform.db.models import Answer, Question, Reference, System, TestSet

ENGLISH = [
    ("What is the capital of Canada?", "Canada's capital is Ottawa, in the province of Ontario.",
     "Ottawa is the capital city of Canada. It stands on the south bank of the Ottawa River in Ontario."),
    ("Who wrote Pride and Prejudice?", "Jane Austen wrote Pride and Prejudice.",
     "Pride and Prejudice is an 1813 novel of manners by Jane Austen."),
    ("How many legs does a spider have?", "A spider has eight legs.",
     "Spiders are arachnids: they have eight legs, chelicerae with fangs and no wings."),
    ("What gas do plants take in for photosynthesis?", "Plants take in carbon dioxide.",
     "In photosynthesis plants use light to turn carbon dioxide and water into sugar and oxygen."),
    ("When did the Berlin Wall fall?", "The Berlin Wall fell on 9 November 1989.",
     "The Berlin Wall was opened on 9 November 1989, and its demolition began the following summer."),
    ("What is the boiling point of water at sea level?", "Water boils at 100 degrees Celsius at sea level.",
     "At standard atmospheric pressure pure water boils at 100 degrees Celsius (212 degrees Fahrenheit)."),
    ("Which planet is closest to the Sun?", "Mercury is the planet closest to the Sun.",
     "Mercury is the smallest planet of the Solar System and the closest to the Sun."),
    ("Who painted the Mona Lisa?", "Leonardo da Vinci painted the Mona Lisa.",
     "The Mona Lisa is a half-length portrait painting by the Italian artist Leonardo da Vinci."),
    ("What is the largest ocean on Earth?", "The Pacific Ocean is the largest ocean.",
     "The Pacific Ocean is the largest and deepest of Earth's five oceanic divisions."),
    ("How many minutes are in a day?", "A day has 1,440 minutes.",
     "A day of 24 hours of 60 minutes each has 1,440 minutes."),
]
CHINESE = [
    ("加拿大的首都是哪里？", "加拿大的首都是渥太华，位于安大略省。", "渥太华是加拿大的首都，位于安大略省渥太华河南岸。"),
    ("《红楼梦》的作者是谁？", "《红楼梦》的作者是曹雪芹。", "《红楼梦》是清代小说，一般认为前八十回由曹雪芹所著。"),
    ("蜘蛛有几条腿？", "蜘蛛有八条腿。", "蜘蛛属于蛛形纲，有八条腿，没有翅膀。"),
    ("植物进行光合作用时吸收什么气体？", "植物吸收二氧化碳。", "光合作用中，植物利用光能把二氧化碳和水转化为糖和氧气。"),
    ("柏林墙是哪一年倒塌的？", "柏林墙于1989年11月9日倒塌。", "1989年11月9日柏林墙开放，次年夏天开始被拆除。"),
    ("海平面上水的沸点是多少？", "海平面上水的沸点是100摄氏度。", "在标准大气压下，纯水在100摄氏度沸腾。"),
    ("离太阳最近的行星是哪颗？", "水星是离太阳最近的行星。", "水星是太阳系中最小、离太阳最近的行星。"),
    ("《蒙娜丽莎》是谁画的？", "《蒙娜丽莎》是达·芬奇画的。", "《蒙娜丽莎》是意大利画家列奥纳多·达·芬奇创作的肖像画。"),
    ("地球上最大的海洋是哪个？", "太平洋是地球上最大的海洋。", "太平洋是地球上面积最大、最深的大洋。"),
    ("一天有多少分钟？", "一天有1440分钟。", "一天24小时，每小时60分钟，共1440分钟。"),
]
LONG_ENGLISH = (
    " Historians and geographers usually add a good deal of background when they answer a question like "
    "this one, because the short answer alone rarely explains why things came to be the way they are. "
    "The place, the people and the period all matter, and so do the sources that tell us about them. "
    "Some of those sources were written long after the events, by authors with their own reasons for "
    "telling the story in a particular way, so a careful reader compares several accounts before "
    "trusting any single one. Even so, the central fact stated at the start of this answer is not in "
    "dispute, and everything that follows only adds context that a reader may or may not need. Readers "
    "in a hurry can stop here."
)
LONG_CHINESE = (
    "历史学家和地理学家在回答这类问题时，通常会补充大量背景，因为只给出简短的答案往往无法说明事情为何如此。"
    "地点、人物和时代都很重要，记载这些内容的史料也同样重要。其中一些史料是在事件发生很久之后写成的，"
    "作者各有立场，因此认真的读者会比较多种记载，而不会轻信其中任何一种。即便如此，本答案开头陈述的核心事实"
    "并无争议，后面的内容只是补充读者可能需要、也可能不需要的背景。当然，不同的学者对细节仍有不同看法，"
    "有人强调地理位置的作用，有人强调政治和经济的作用，也有人认为偶然事件起了决定性的作用。"
    "读者若有兴趣，可以查阅相关的专著和论文，进一步了解这些争论的来龙去脉，以及各种观点所依据的史料。"
)


def _variants(reference: str, chinese: bool) -> list[str]:
    """Seven systems' answers: good, reworded, padded, cut short, hedged, wrong, terse."""
    if chinese:
        return [reference, "我认为" + reference, reference + "这是众所周知的。",
                reference[: max(2, len(reference) // 2)],
                "可能是：" + reference, "我不知道答案。", reference.rstrip("。")]
    return [reference, "I think " + reference[0].lower() + reference[1:], reference + " This is well known.",
            reference[: max(3, len(reference) // 2)], "Probably: " + reference, "I do not know the answer.",
            reference.rstrip(".")]


def make_showcase(session: Session, *, name: str, lang: str = "en", long: bool = False) -> TestSet:
    """The showcase test set in ``lang`` (``en`` or ``zh-Hans``), flushed, not committed."""
    chinese = lang.startswith("zh")
    rows = CHINESE if chinese else ENGLISH
    test_set = TestSet(name=name)
    session.add(test_set)
    systems = [System(name=f"system-{k + 1}") for k in range(7)]
    test_set.systems.extend(systems)
    for i, (question_text, reference, context) in enumerate(rows):
        if long:
            reference = reference + (LONG_CHINESE if chinese else LONG_ENGLISH)
        question = Question(external_id=f"q{i:02d}", text=question_text, context=context)
        question.references.append(Reference(position=0, text=reference))
        test_set.questions.append(question)
        for system, answer in zip(systems, _variants(reference, chinese), strict=True):
            system.answers.append(Answer(question=question, text=answer))
    session.flush()
    return test_set

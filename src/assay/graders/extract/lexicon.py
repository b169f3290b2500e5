"""The words answer extraction reads, per language: answers, negators, hedges, labels and their kin.

Data only; :mod:`assay.graders.extract.extraction` compiles it. Entries are plain words or short phrases
(matched case-insensitively, whole words in spaced scripts, as substrings in Japanese and Chinese) unless the
field says it holds regex fragments. A fragment is linear: literals, classes, fixed lookarounds, no nested
quantifiers. The view they run on has every run of spaces collapsed to one space, so " " is literal.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


def _w(words: str) -> tuple[str, ...]:
    """A tuple from "a|b|c" (keeps the word lists short to read; so no fragment may hold a "|")."""
    return tuple(words.split("|"))


@dataclass(frozen=True, slots=True, kw_only=True)
class Lexicon:
    """What one language contributes to extraction."""

    spaced: bool = True
    """Whether words are separated by spaces (False: Japanese, Chinese; matched as substrings)."""
    yes: tuple[str, ...]
    """Answer particles meaning yes: a clause of just one of these is an answer."""
    no: tuple[str, ...]
    true: tuple[str, ...]
    """Truth words meaning true/correct: answers alone, verdicts after a copula ("that's correct")."""
    false: tuple[str, ...]
    verdict_only: tuple[tuple[str, str], ...] = ()
    """(word, "+" or "-") read only after a copula: too common alone ("Right, so...")."""
    negators: tuple[str, ...]
    """Words that negate what stands near them ("not", "pas", "nicht", "不", "ない")."""
    hedges: tuple[str, ...]
    """Words of doubt; one anywhere in the reply refuses it."""
    vetoes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """A negator or hedge followed by one of these is none ("no doubt", "不错", "非常")."""
    qualifiers: tuple[str, ...] = ()
    """Words that restrict an answer ("usually", "technically"): refused in the answer's sentence."""
    contrasts: tuple[str, ...] = ()
    """"but", "if", "unless" and kin: in the answer's sentence they qualify it (refused as hedged)."""
    causals: tuple[str, ...] = ()
    """"because" and kin: the rest of the sentence explains, it does not restate, so checks stop there."""
    discourse: tuple[str, ...] = ()
    """Openers allowed before a lone answer word ("so, no", "well yes")."""
    intensifiers: tuple[str, ...] = ()
    """Words stripped from the front of a span ("definitely yes" → "yes")."""
    labels: tuple[str, ...]
    """RE2 fragments, each ending where the answer begins ("answer ?[:：]"); whole words in spaced scripts."""
    label_vetoes: tuple[str, ...] = ()
    """Words that make the label right after them none ("longer answer: while...")."""
    verdicts: tuple[str, ...] = ()
    """RE2 fragments matched right before a truth word to read it as a verdict ("is ", "c'est ")."""
    verdict_after: tuple[str, ...] = ()
    """Unspaced scripts: what may follow a verdict's truth word (spaced ones need a word end)."""
    question_ends: tuple[str, ...] = ()
    """Words that make a question without a question mark: at the end (か, 吗), anywhere if spaced (ли)."""
    corrections: tuple[str, ...] = ()
    """Words that, opening a clause after the answer, take it back ("wait, no", "actually", "correction")."""


_NO_VETOES = {"no": (" doubt", " question", " problem", " wonder")}
"""The negator "no" (en, es, it) is none in idioms that affirm ("yes, no doubt")."""

_ADVERB = "(?: (?:{}))?"
"""An optional adverb between a copula and a truth word ("is definitely true"); used twice for two."""

_ADVERBS_EN = _ADVERB.format(
    "indeed|definitely|absolutely|actually|completely|entirely|totally|really|certainly|also|still|not"
)
ENGLISH = Lexicon(
    yes=_w("yes|yeah|yep|yup"),
    no=_w("no|nope|nah|absolutely not|definitely not|of course not|certainly not"),
    true=_w("true|correct|accurate"),
    false=_w("false|incorrect|wrong|inaccurate|untrue"),
    verdict_only=(("right", "+"),),
    negators=_w(
        "not|never|no|neither|nor|cannot|isn't|aren't|wasn't|weren't|don't|doesn't|didn't|can't|"
        "won't|wouldn't|shouldn't|couldn't|hasn't|haven't|hadn't|ain't"
    ),
    vetoes=_NO_VETOES,
    hedges=_w(
        "maybe|perhaps|probably|possibly|likely|unlikely|presumably|arguably|i think|i believe|i guess|"
        "i suppose|i'd say|i would say|i doubt|not sure|unsure|not certain|uncertain|not 100%|"
        "hard to say|difficult to say|can't say|cannot say|can't tell|cannot tell|don't know|"
        "not entirely|it depends|depends on|might be|may be|could be|might not|may not|either way|seems|"
        "seem to|it appears|appears to|my guess|i'm guessing|pretty sure|fairly sure|fairly confident|"
        "not really|kind of|sort of|more or less|to some extent|i could be wrong|if i'm not mistaken|"
        "correct me if|i may be wrong|may have|might have|misread|misunderstood|yeah, right|yeah right|"
        "as if|like that would|like that'd|sure, sure|not!"
    ),
    qualifiers=_w(
        "usually|generally|typically|mostly|often|sometimes|in general|in most cases|technically|partly|"
        "partially|not always|somewhat|in theory|in principle|at least|in most|for the most part|depending|"
        "in some cases|in certain cases|with some exceptions"
    ),
    contrasts=_w(
        "but|however|although|though|except|unless|yet|if|only if|provided that|assuming|as long as"
    ),
    causals=_w("because|since|due to|thanks to"),
    discourse=_w(
        "so|well|thus|hence|therefore|then|ok|okay|actually|overall|in short|in conclusion|in summary|"
        "to summarize|to sum up|short answer|long story short|wait|no wait|sorry|i mean|correction|oops"
    ),
    intensifiers=_w("definitely|absolutely|certainly|clearly|simply|indeed|of course"),
    labels=(
        "answer ?[:：]",
        "answer (?:is|would be|will be|here is)(?: ?:| |$)",
        "verdict ?[:：]",
        "verdict is(?: ?:| |$)",
        "conclusion ?[:：]",
    ),
    label_vetoes=_w("long|longer|detailed|full|extended"),
    verdicts=(
        "(?:is|are|was|were|be|isn't|aren't|wasn't|weren't)" + _ADVERBS_EN + _ADVERBS_EN + " ",
        "'s" + _ADVERBS_EN + _ADVERBS_EN + " ",
    ),
    corrections=_w(
        "on reflection|in fact|it turns out|turns out|my mistake|i miscalculated|upon review|"
        "looking again|hold on|hang on|oh wait|wait|no wait|wait no|actually|correction|"
        "on second thought|on second thoughts|just kidding|jk"
        "i mean|scratch that|sorry|oops|never mind|rather|let me recheck|let me reconsider|hmm|however|"
        "though|although|but|alternatively|some sources say|others say|or maybe|or perhaps|not|nope"
    ),
)

_ADVERBS_FR = _ADVERB.format(
    "pas|bien|vraiment|absolument|effectivement|totalement|complètement|parfaitement|tout à fait"
)
FRENCH = Lexicon(
    yes=_w("oui|ouais|si"),  # "si" contradicts a negative question: "Non ! Enfin si."
    no=_w("non|absolument pas|pas du tout|certainement pas|bien sûr que non|évidemment pas|que non"),
    true=_w("vrai|vraie|exact|exacte|correct|correcte"),
    false=_w("faux|fausse|inexact|inexacte|incorrect|incorrecte|erroné|erronée"),
    verdict_only=(("juste", "+"),),
    negators=_w("ne|n'|pas|non|jamais|aucun|aucune|ni|nullement"),
    hedges=_w(
        "comme si|c'est ça oui|mon œil|"
        "peut-être|peut être|probablement|sans doute|je pense|je crois|il me semble|il semble|"
        "semble-t-il|pas sûr|pas sûre|pas certain|pas certaine|incertain|possiblement|il se peut|"
        "il est possible|vraisemblablement|je dirais|je suppose|à mon avis|je ne sais pas|"
        "difficile à dire|ça dépend|cela dépend|dépend de|pourrait|plutôt|si je ne me trompe pas|je me trompe"
    ),
    qualifiers=_w(
        "généralement|en général|normalement|habituellement|souvent|parfois|techniquement|en partie|"
        "partiellement|pas toujours|en théorie|en principe|au moins|dans la plupart|dans certains cas|"
        "selon les cas"
    ),
    contrasts=_w(
        "mais|cependant|toutefois|pourtant|bien que|sauf|à moins que|néanmoins|si|s'il|à condition|"
        "pourvu que|"
        "tant que"
    ),
    causals=_w("car|parce que|parce qu'|puisque|étant donné"),
    discourse=_w(
        "donc|alors|bon|bref|en bref|ainsi|eh bien|en résumé|en conclusion|finalement|en fait|au final|"
        "enfin|pardon|je veux dire|désolé|correction"
    ),
    intensifiers=_w(
        "absolument|certainement|bien sûr que|bien sûr|évidemment que|évidemment|tout à fait|effectivement|"
        "clairement|que"
    ),
    labels=(
        "réponse(?: finale)? ?[:：]",
        "réponse(?: finale| correcte)? (?:est|serait)(?: ?:| |$)",
        "verdict ?[:：]",
        "conclusion ?[:：]",
    ),
    verdicts=("(?:est|c'est|n'est|était|sont|semble)" + _ADVERBS_FR + _ADVERBS_FR + " ",),
    corrections=_w(
        "attends|attendez|en fait|correction|je veux dire|plutôt|pardon|oups|je plaisante|non attends|"
        "à la réflexion|tout compte fait|cependant|mais|pourtant|quoique|sinon|ou plutôt|pas"
    ),
)

_ADVERBS_DE = _ADVERB.format("nicht|doch|tatsächlich|völlig|absolut|durchaus|vollkommen|wirklich|auch|also")
GERMAN = Lexicon(
    yes=_w("ja|jawohl|jep|genau|doch"),
    no=_w("nein|nö|nee|natürlich nicht|sicher nicht|gar nicht|keineswegs|auf keinen fall|absolut nicht"),
    true=_w("wahr|richtig|korrekt|zutreffend|stimmt"),
    false=_w("falsch|unwahr|inkorrekt|unrichtig|unzutreffend"),
    negators=_w("nicht|kein|keine|keinen|keiner|keinem|keines|nie|niemals|nein|keineswegs|keinesfalls"),
    vetoes={"kein": (" zweifel", " problem")},
    hedges=_w(
        "als ob|ja, klar|na klar doch|"
        "vielleicht|wahrscheinlich|vermutlich|möglicherweise|eventuell|ich glaube|ich denke|ich vermute|"
        "ich schätze|nicht sicher|unsicher|bin mir nicht|weiß nicht|weiß ich nicht|schwer zu sagen|"
        "kommt darauf an|hängt davon ab|könnte|dürfte|scheint|anscheinend|wohl eher|wenn ich mich nicht irre|"
        "ich irre mich"
    ),
    qualifiers=_w(
        "normalerweise|meistens|im allgemeinen|grundsätzlich|in der regel|manchmal|oft|teilweise|"
        "technisch gesehen|nicht immer|theoretisch|zumindest|mindestens|in den meisten|in manchen fällen|"
        "je nach"
    ),
    contrasts=_w("aber|jedoch|allerdings|obwohl|außer|es sei denn|sondern|wenn|falls|sofern|solange"),
    causals=_w("weil|denn|nämlich|da es|da die|da der|da das"),
    discourse=_w(
        "also|nun|gut|kurz|kurz gesagt|fazit|somit|daher|deshalb|folglich|insgesamt|tatsächlich|kurzum|"
        "moment|warte|eigentlich|ich meine|korrektur|sorry|entschuldigung"
    ),
    intensifiers=_w("absolut|definitiv|eindeutig|natürlich|selbstverständlich|klar|sicher"),
    labels=(
        "antwort ?[:：]",
        "antwort (?:ist|lautet|wäre)(?: ?:| |$)",
        "fazit ?[:：]",
        "ergebnis ?[:：]",
    ),
    verdicts=(
        "(?:ist|sind|war|wäre|bleibt)" + _ADVERBS_DE + _ADVERBS_DE + " ",
        "(?:das|es|dies|dieses|sie|er) ",
    ),
    corrections=_w(
        "warte|moment|eigentlich|korrektur|ich meine|besser gesagt|vielmehr|sorry|hoppla|nur ein scherz|"
        "war nur spaß|spaß|bei näherer betrachtung|jedoch|aber|allerdings|obwohl|oder eher|nicht"
    ),
)

_ADVERBS_ES = _ADVERB.format("completamente|totalmente|realmente|absolutamente|del todo|sin duda")
SPANISH = Lexicon(
    yes=_w("sí|si"),
    no=_w("no|para nada|en absoluto|claro que no|por supuesto que no|de ninguna manera|que no"),
    true=_w("verdadero|verdadera|cierto|cierta|correcto|correcta|verdad"),
    false=_w("falso|falsa|incorrecto|incorrecta|erróneo|errónea"),
    negators=_w("no|nunca|jamás|ni|tampoco|ningún|ninguna|ninguno|para nada|en absoluto"),
    vetoes=_NO_VETOES,
    hedges=_w(
        "como si|ya, claro|sí, claro que sí, seguro|"
        "quizás|quizá|tal vez|probablemente|posiblemente|creo que|creo|pienso que|supongo|"
        "no estoy seguro|no estoy segura|no sé|no lo sé|puede que|puede ser|podría|parece|al parecer|"
        "a lo mejor|seguramente|depende|es difícil decir|diría|si no me equivoco|me equivoque"
    ),
    qualifiers=_w(
        "generalmente|normalmente|en general|a veces|por lo general|técnicamente|en parte|parcialmente|"
        "no siempre|en teoría|en principio|al menos|por lo menos|en la mayoría|en algunos casos|según el caso"
    ),
    contrasts=_w(
        "pero|sin embargo|aunque|salvo|excepto|a menos que|no obstante|sino|siempre que|con tal de que|"
        "mientras que|en caso de que"
    ),
    causals=_w("porque|ya que|puesto que|dado que"),
    discourse=_w(
        "entonces|así que|bueno|pues|por lo tanto|en resumen|en conclusión|en definitiva|de hecho|en fin|"
        "perdón|quise decir|quiero decir|mejor dicho|en realidad|espera"
    ),
    intensifiers=_w(
        "definitivamente|absolutamente|claramente|ciertamente|claro que|claro|por supuesto que|por supuesto|"
        "desde luego que|desde luego|que"
    ),
    labels=(
        "respuesta(?: final)? ?[:：]",
        "respuesta(?: final| correcta)? (?:es|sería)(?: ?:| |$)",
        "conclusión ?[:：]",
    ),
    verdicts=("(?:es|son|era|está|resulta)" + _ADVERBS_ES + " ",),
    corrections=_w(
        "espera|en realidad|corrección|quiero decir|mejor dicho|perdón|ups|es broma|era broma|"
        "pensándolo bien|sin embargo|pero|aunque|o más bien"
    ),
)

_ADVERBS_IT = _ADVERB.format("completamente|totalmente|davvero|assolutamente|proprio|del tutto|certamente")
ITALIAN = Lexicon(
    yes=_w("sì|si"),
    no=_w("no|assolutamente no|certo che no|per niente|niente affatto|nient'affatto"),
    true=_w("vero|vera|corretto|corretta|esatto|esatta"),
    false=_w("falso|falsa|sbagliato|sbagliata|errato|errata|scorretto|scorretta"),
    verdict_only=(("giusto", "+"), ("giusta", "+")),
    negators=_w("non|no|mai|né|nessuno|nessuna|niente|nulla|affatto"),
    vetoes=_NO_VETOES,
    hedges=_w(
        "figurati|come no|sì, come no|"
        "forse|probabilmente|possibilmente|credo|penso|suppongo|direi|non sono sicuro|non sono sicura|"
        "non sono certo|non sono certa|non so|può darsi|potrebbe|sembra|pare|magari|dipende|"
        "difficile dire|difficile a dirsi|potrei|se non sbaglio|sbagliarmi"
    ),
    qualifiers=_w(
        "generalmente|normalmente|in generale|di solito|a volte|spesso|tecnicamente|in parte|"
        "parzialmente|non sempre|in teoria|almeno|nella maggior parte|in alcuni casi|a seconda"
    ),
    contrasts=_w(
        "ma|però|tuttavia|sebbene|anche se|eccetto|tranne|a meno che|bensì|se|purché|a patto che|finché"
    ),
    causals=_w("perché|poiché|dato che|siccome|visto che"),
    discourse=_w(
        "quindi|dunque|allora|beh|insomma|in breve|in conclusione|infatti|in effetti|anzi|scusa|cioè|"
        "volevo dire|"
        "in realtà|aspetta"
    ),
    intensifiers=_w(
        "assolutamente|certamente|certo che|certo|sicuramente|decisamente|chiaramente|ovviamente|ma certo"
    ),
    labels=(
        "risposta(?: finale)? ?[:：]",
        "risposta(?: finale| corretta)? (?:è|e'|sarebbe)(?: ?:| |$)",
        "conclusione ?[:：]",
    ),
    verdicts=("(?:è|e'|sono|era|risulta)" + _ADVERBS_IT + " ",),
    corrections=_w(
        "non|aspetta|anzi|in realtà|correzione|voglio dire|scusa|scherzo|scherzavo|ripensandoci|tuttavia|"
        "però|ma|sebbene|o meglio"
    ),
)

_ADVERBS_PT = _ADVERB.format("completamente|totalmente|realmente|absolutamente|mesmo|de fato")
PORTUGUESE = Lexicon(
    yes=_w("sim"),
    no=_w("não|nao|claro que não|de jeito nenhum|de modo nenhum|que não"),
    true=_w("verdadeiro|verdadeira|verdade|correto|correta|certo|certa"),
    false=_w("falso|falsa|incorreto|incorreta|errado|errada"),
    negators=_w("não|nao|nunca|jamais|nem|nenhum|nenhuma"),
    hedges=_w(
        "até parece|como se|sim, claro que sim, pois|"
        "talvez|provavelmente|possivelmente|acho que|acredito que|creio que|suponho|não tenho certeza|"
        "não estou certo|não estou certa|não sei|pode ser|poderia|parece|aparentemente|depende|"
        "difícil dizer|diria|se não me engano|posso estar enganado|posso estar enganada"
    ),
    qualifiers=_w(
        "geralmente|normalmente|em geral|às vezes|tecnicamente|em parte|parcialmente|nem sempre|em teoria|"
        "pelo menos|na maioria|em alguns casos|dependendo"
    ),
    contrasts=_w(
        "mas|porém|contudo|entretanto|embora|exceto|a menos que|no entanto|todavia|se|desde que|contanto que|"
        "caso"
    ),
    causals=_w("porque|pois|já que|visto que|uma vez que"),
    discourse=_w(
        "então|portanto|bem|logo|em resumo|em conclusão|de fato|na verdade|enfim|aliás|desculpa|quer dizer|"
        "quero dizer|espera"
    ),
    intensifiers=_w(
        "definitivamente|absolutamente|certamente|claramente|com certeza|obviamente|claro que|claro|que"
    ),
    labels=(
        "resposta(?: final)? ?[:：]",
        "resposta(?: final| correta)? (?:é|seria)(?: ?:| |$)",
        "conclusão ?[:：]",
    ),
    verdicts=("(?:é|são|era|está)" + _ADVERBS_PT + " ",),
    corrections=_w(
        "espera|na verdade|correção|quer dizer|ou melhor|desculpa|brincadeira|é brincadeira|"
        "pensando bem|porém|mas|embora|contudo"
    ),
)

JAPANESE = Lexicon(
    spaced=False,
    yes=_w("はい|ええ|うん|そうです|その通り|そのとおり"),
    no=_w("いいえ|ううん|違います|ちがいます|違う"),
    true=_w("正しい|真|本当|正解|正確"),
    false=_w("誤り|偽|間違い|不正解"),
    negators=_w("ない|ません|なかった|ではなく|じゃなく"),
    hedges=(
        "たぶん",
        "多分",
        "かもしれ",
        "と思い",
        "と思う",
        "と思われ",
        "おそらく",
        "恐らく",
        "でしょう",
        "だろう",
        "わかりません",
        "分かりません",
        "わからない",
        "分からない",
        "確信が",
        "はっきりしない",
        "はっきりとは",
        "ようです",
        "みたいです",
        "可能性",
    ),
    qualifiers=_w(
        "通常|一般的に|基本的に|場合によって|時々|技術的には|部分的に|必ずしも|少なくとも|ほとんどの|場合による"
    ),
    contrasts=_w("しかし|でも|ただし|けれど|けど|ものの|れば|ならば|であれば|場合は"),
    causals=_w("なぜなら|ので|ため"),
    discourse=_w(
        "つまり|よって|したがって|結論として|要するに|なので|だから|結局|いや|待って|訂正|失礼|すみません"
    ),
    intensifiers=_w("もちろん|確かに|絶対に|明らかに"),
    labels=("(?:最終的な|最終)?(?:答え|回答|解答|結論) ?(?:[:：]|は)",),
    verdicts=("[はがも]",),
    verdict_after=_w("です|だ|でし|である|では|じゃ|。|、|!|\n| "),
    question_ends=_w("ですか|ますか|でしょうか|のか|かな"),
    corrections=_w("いや|待って|訂正|冗談|実は|やっぱり|ただし|しかし|でも"),
)

CHINESE = Lexicon(
    spaced=False,
    yes=_w("是|是的|对|对的|没错|嗯"),
    no=_w("否|不|不是|不是的|不对|没有"),
    true=_w("正确|真|真的|属实|正确的"),
    false=_w("错|错误|错的|假|假的|不正确|不属实|错误的"),
    negators=_w("不|没|非|未|无|并非"),
    vetoes={
        "不": tuple("错过仅同论管"),
        "没": ("错", "问题"),
        "非": ("常",),
        "未": ("来",),
        "无": ("论", "疑"),
    },
    hedges=_w(
        "也许|可能|大概|或许|我觉得|我认为|我想|不确定|不太确定|说不定|应该|估计|似乎|好像|恐怕|不知道|不清楚"
    ),
    qualifiers=_w("通常|一般来说|大多数情况|有时|部分|理论上|从技术上|不一定|至少|大多数|大部分|在某些情况"),
    contrasts=_w("但|但是|不过|然而|可是|除非|虽然|如果|只要|假如|前提是"),
    causals=_w("因为|由于"),
    discourse=_w("所以|因此|总之|综上所述|综上|总的来说|其实|事实上|那么|等等|抱歉|更正|我是说|不好意思"),
    intensifiers=_w("当然|确实|肯定|绝对|的确|显然"),
    labels=("(?:最终)?(?:答案|回答|结论) ?(?:[:：]|是 ?[:：]?|为 ?[:：]?)",),
    verdict_only=(("对", "+"), ("对的", "+")),
    verdicts=("[是为很都也]", "说法", "陈述", "命题"),
    verdict_after=_w("的|。|,|、|!|\n| |."),
    question_ends=_w("吗|嘛|呢|么"),
    corrections=_w("等等|不对|其实|更正|开玩笑|实际上|但是|不过|然而"),
)

_ADVERBS_RU = _ADVERB.format("не|совершенно|абсолютно|вполне|действительно|именно|тоже")
RUSSIAN = Lexicon(
    yes=_w("да|ага|угу"),
    no=_w("нет|неа|конечно нет|вовсе нет|совсем нет"),
    true=_w("верно|правда|истина|истинно|правильно"),
    false=_w("неверно|неправда|ложь|ложно|неправильно|ошибочно"),
    negators=_w("не|ни|нет|никогда|отнюдь"),
    hedges=_w(
        "как будто|ага, конечно|ну да, конечно|"
        "возможно|наверное|наверно|вероятно|может быть|кажется|думаю|полагаю|не уверен|не уверена|"
        "пожалуй|видимо|скорее всего|по-моему|вроде|не знаю|сложно сказать|трудно сказать|зависит|"
        "могу ошибаться|если не ошибаюсь|может, ошибаюсь"
    ),
    qualifiers=_w(
        "обычно|как правило|иногда|частично|технически|не всегда|теоретически|по крайней мере|"
        "в большинстве|в некоторых случаях|в зависимости"
    ),
    contrasts=_w("но|однако|хотя|зато|кроме|если только|если|при условии"),
    causals=_w("потому что|так как|поскольку|ведь"),
    discourse=_w(
        "итак|так что|значит|следовательно|таким образом|в общем|короче|в итоге|ну|вернее|точнее|то есть|ой|"
        "стоп|подождите|извините"
    ),
    intensifiers=_w("конечно|безусловно|определённо|определенно|абсолютно|точно|разумеется|действительно"),
    labels=("ответ ?(?:[:：]|[-–—] |будет |такой ?:?)", "вывод ?[:：]"),
    verdicts=("(?:это|утверждение|высказывание|оно|всё|все|ответ)" + _ADVERBS_RU + " ",),
    question_ends=("ли",),
    corrections=_w(
        "подождите|подожди|на самом деле|поправка|то есть|вернее|точнее|шучу|извините|однако|но|хотя"
    ),
)

LEXICONS: dict[str, Lexicon] = {
    "english": ENGLISH,
    "french": FRENCH,
    "german": GERMAN,
    "spanish": SPANISH,
    "italian": ITALIAN,
    "portuguese": PORTUGUESE,
    "japanese": JAPANESE,
    "chinese": CHINESE,
    "russian": RUSSIAN,
}
"""Every language extraction knows, by the name true-false's locale presets use."""

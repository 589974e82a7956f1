"""A multilingual refusal lexicon: whether a reply declines to answer ("I cannot find that in the
documents", "दस्तावेज़ में इसकी जानकारी नहीं है"), and by which phrase, for the ``refusal`` metric.

A refusal is a reply that says it will not or cannot give the answer: it cannot find or answer, the
documents do not mention or specify it, it has no information, the question is outside its scope. The
rule a careful reader uses is in ``ROLES`` (``text.refusal_roles``): a negated verb of saying, showing
or finding whose subject is the source (a text, or an agreement that says) or the speaker, a passive "is
not stated in <the source>", or "no information/mention"; the phrases of ``PHRASES`` are the set
expressions ("I don't know", "outside my scope"). A reply that merely says "not" is no refusal:
"pre-existing diseases are not covered for 36 months" and "the policy does not cover cosmetic surgery"
are answers, and so are "we cannot pay claims filed late" and "cover is not provided for dental
treatment". So every phrase names what a refusal is about (an answer, information, a mention, the
documents) or who is declining (I, we), never a bare negation, and verbs a policy's answer uses with a
negation (cover, include, provide, offer, pay) count only with such an object ("the documents do not
provide any information").

Phrases are written per language (English; the Indian languages Hindi, Marathi, Bengali, Tamil, Telugu,
Kannada, Malayalam, Gujarati; French, Spanish, German, Portuguese, Italian) in the small notation of
``text.refusal_notation`` (words in order, ``{a|b}`` and ``[a|b]`` alternatives, ``…`` gaps, ``*`` within
a word, ``^`` first, ``!{...}`` not followed by, ``=>`` a role's subject), matched as whole words on text
under the ``unicode`` profile.

``PHRASES`` are read over the whole reply, ``ROLES`` clause by clause (the reply cut at sentence ends,
commas, semicolons, colons, dashes, brackets), so a subject never reaches across a comma to another
clause's verb ("As per the policy document, the insured does not disclose ...").

What it cannot see: a reply that answers and adds a caveat ("30 days; the renewal bonus is not
mentioned in the document") holds a phrase all the same; the ``refusal`` metric reads such a reply as
an answer when it states a value before the phrase (``scorers.refusal.reading``), and its trace names
the phrase otherwise, so the rest are easy to review. The lists (these and the roles') are versioned:
change any, bump ``VERSION`` (it is in the ``refusal`` metric's signature).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping

import regex

from . import unicode
from .refusal_notation import Refusal, compile_lexicon, locate
from .refusal_roles import find_role

VERSION = 4
SIGNATURE = f"refusals:{VERSION}"

_CANNOT = (
    "{cannot|can not|can t|cant|could not|couldn t|couldnt|unable to|not able to|won t be able to"
    "|will not be able to}"
)
_NEGATED_DO = "{does not|do not|doesn t|don t|did not|didn t|doesnt|dont|didnt}"
_MATERIAL = (
    "{document|documents|context|text|texts|source|sources|passage|passages|excerpt|excerpts|material"
    "|materials|extract|extracts|snippets|content|information|data|records}"
)
_ELSEWHERE = (
    "{in the table|in the schedule|in the list|in annexure|in the annexure|in clause|in section|in part"
    "|in this clause|in this section|above|below|herein|hereunder|hereinafter|elsewhere|otherwise}"
)
_INFORMATION = "{information|details|detail|mention|data|answer|specifics|reference|figure|value|amount}"

# language -> phrases in the notation (``text.refusal_notation``). Each phrase's comment-free text is
# what a trace names.
PHRASES: Mapping[str, tuple[str, ...]] = {
    "en": (
        # who declines: "I cannot find", "I'm afraid we are unable to answer", "I was not able to locate"
        "{i|we} …3 " + _CANNOT + " [be able to] {answer|find|locate|say|tell|determine|confirm|help|assist"
        "|comment|identify|see|access|advise|speak|respond|verify|answer that}",
        "{i|we} …3 " + _CANNOT + " {provide|give|offer|share} …2 " + _INFORMATION,
        "^ {unable to|not able to} {answer|find|locate|determine|confirm|identify|provide}",
        "{cannot|can not|can t|cant|could not|couldn t} be {answered|determined|found|confirmed|ascertained"
        "|identified|located|established|verified} {from|with|based on|using|in|given|without}",
        "{not possible|impossible} to {answer|determine|say|tell|confirm|know|find|ascertain}",
        "{i|we} {can only|only} {answer|help|assist|respond}",
        # the documents are silent: "not mentioned in the policy document", "not found in the context"
        "not {mentioned|stated|specified|found|addressed|discussed|described|defined|disclosed|detailed"
        "|documented|given|provided|available|included|present|listed|contained} {in|within|by"
        "|anywhere in|from} [the|this|these|any|my|your] …3 " + _MATERIAL,
        # (a finite "is not mentioned in the policy" is the roles'; a relative clause is a policy's own:
        # "any treatment not specified in the policy wording shall not be payable")
        "^ not {mentioned|stated|specified|found|addressed|discussed|described|defined|disclosed|detailed"
        "|documented} {in|within|anywhere in} [the|this|these|any|your] …3 {policy|policies|wording"
        "|wordings|brochure|schedule|prospectus}",
        "not {in|within|among} [the|these|this|my|your|any] …2 " + _MATERIAL,
        # bare, but not where a policy's own wording points elsewhere ("if a loss is not mentioned in the
        # table above, ...", "unless not specified otherwise")
        "{{is|are|was|were} not|isn t|aren t|wasn t|weren t|isnt|arent} {mentioned|specified|stated"
        "|disclosed|documented} !" + _ELSEWHERE,
        _MATERIAL + " …3 " + _NEGATED_DO + " {address|discuss|detail|describe|define|say|cover this"
        "|cover that|cover the question}",
        "{document|documents|context|text|texts|source|sources|passage|passages|excerpt|excerpts|material"
        "|materials|extract|extracts|policy|policies|wording|brochure} …3 " + _NEGATED_DO + " {contain"
        "|include|provide|give|have|offer} …2 " + _INFORMATION,
        # no information: "I don't have that information", "there is no mention of it"
        "{i|we} " + _NEGATED_DO + " have …3 {information|details|data|access|knowledge|context|answer"
        "|record|records}",
        "{i|we} have no …1 {information|details|data|record|records|knowledge|answer}",
        # not "no details" ("any kit with no details mentioned: not payable", the IRDAI list), nor
        # "insufficient information provided to the Company", nor a condition of a claim ("if no
        # information is given within 48 hours", "no information is required from the insured")
        "{no|not enough} [relevant|specific|such|further|additional|clear|explicit|direct|available]"
        " {information|mention} !{is required|is needed|is given|is furnished|is received|is provided by"
        "|was given|was provided by|required|needed|given|furnished|received|provided by|to be}",
        "no [relevant|specific|such|further|additional] {details|detail|data} …4 {in|within|from} [the|these"
        "|this|any|my|your] …2 " + _MATERIAL,
        # the documents are silent; the information is not available; "Not mentioned." alone
        "{document|documents|context|text|texts|source|sources|policy|policies|wording|wordings|brochure}"
        " {is|are} silent",
        "{information|details|answer|data} {is not|are not|isn t|aren t|not} available",
        "based on [the|these|this|my|your] …2 " + _MATERIAL + " …2 {cannot|can not|can t|cant|could not"
        "|couldn t} be {answered|determined|found|confirmed|ascertained|said}",
        "^ not {mentioned|specified|stated|disclosed}",
        "{i|we} {am|m|are|re} not {sure|certain}",
        "insufficient information {in|to answer|to determine|available|about|on|regarding}",
        "{i|we} {don t|do not|dont} know",
        "{sorry|apologize|apologise|apologies} …5 {cannot|can not|can t|cant|could not|couldn t|unable"
        "|not able|don t have|do not have|no information|don t know|do not know}",
        # outside the scope of what it may answer (not "outside the scope of cover": an exclusion)
        "{outside|beyond} {the|my|our} scope of {the|these|this|my|our|what|your|available} …3 {document"
        "|documents|context|information|knowledge|sources|source|material|materials|data|expertise|can"
        "|assistance|help|capabilities|answer}",
        "{outside|beyond} {my|our} scope",
        "{question|request|query|topic} …3 {outside|beyond} …1 scope",
    ),
    "hi": (
        "{जानकारी|सूचना|विवरण} …2 {नहीं|नही}",  # "इसकी जानकारी मेरे पास नहीं है", "जानकारी उपलब्ध नहीं"
        "{उत्तर|जवाब|जानकारी|सूचना|विवरण} …1 उपलब्ध {नहीं|नही}",
        "{दस्तावेज़|दस्तावेज़ों|दस्तावेज|दस्तावेजों|संदर्भ} में …2 {उल्लेखित|उल्लिखित|बताया|लिखा|दिया|उपलब्ध"
        "|मौजूद} …1 {नहीं|नही}",
        "उल्लेख …1 {नहीं|नही}",  # "इसका उल्लेख नहीं है", "उल्लेख नहीं किया गया"
        "{नहीं|नही} {बता|बतला|कह} {सकता|सकती|सकते|सकूंगा|सकूँगा|पाऊंगा|पाऊँगा|पा}",
        "{बता|बतला|कह} {नहीं|नही} {सकता|सकती|सकते|पाऊंगा|पाऊँगा|पा}",
        "{उत्तर|जवाब|जानकारी} {नहीं|नही} दे {सकता|सकती|सकते|पाऊंगा|पाऊँगा|पा}",
        "{बताने|देने|खोजने|ढूंढने|ढूँढने} में असमर्थ",
        "मुझे {नहीं|नही} {पता|मालूम}",
        # "दस्तावेज़ों में यह नहीं बताया गया", "इसका उत्तर दस्तावेज़ों में नहीं है"
        "{दस्तावेज़ों|दस्तावेज़|दस्तावेज|दस्तावेजों|संदर्भ} में …3 {नहीं|नही} {बताया|बताई|दिया|दी|लिखा} गया",
        "{उत्तर|जवाब} …1 {दस्तावेज़ों|दस्तावेज़|दस्तावेज|दस्तावेजों|संदर्भ} में {नहीं|नही}",
        "मुझे {पता|मालूम} {नहीं|नही}",
        "मैं {नहीं|नही} {जानता|जानती}",
    ),
    "mr": (
        "{माहिती|तपशील} …2 {नाही|नाहीत}",  # "याबद्दल माहिती उपलब्ध नाही", "मला माहिती नाही"
        "उल्लेख …2 {नाही|नाहीत}",  # "उल्लेख केलेला नाही"
        "{सांगू|सांगता} {शकत|येत} नाही",
        "उत्तर {देऊ|देता} {शकत|येत} नाही",
        "मला {माहित|माहीत|ठाऊक} नाही",
    ),
    "bn": (
        "তথ্য …2 {নেই|নাই|পাইনি|যায়নি|হয়নি|নয়}",  # "তথ্য পাওয়া যায়নি", "এ বিষয়ে তথ্য নেই"
        "উল্লেখ …2 {নেই|নাই|হয়নি|করেনি|নয়}",  # "উল্লেখ করা হয়নি"
        "{বলতে|জানাতে|উত্তর দিতে} {পারছি|পারব|পারবো|পারি} না",
        "{আমি|আমার} …1 {জানি না|জানা নেই}",
        "{নথিতে|নথিগুলিতে|নথিগুলোতে|নথির} …3 {বলা নেই|বলা হয়নি|দেওয়া নেই|দেওয়া হয়নি}",  # "nothing said"
    ),
    "ta": (
        "{தகவல்|தகவல்கள்|விவரம்|விவரங்கள்} …2 {இல்லை|கிடைக்கவில்லை|குறிப்பிடப்படவில்லை|வழங்கப்படவில்லை}",
        "குறிப்பிட*வில்லை",  # "குறிப்பிடப்படவில்லை": is not mentioned
        "{பதிலளிக்க|சொல்ல|கூற|தெரிவிக்க} {முடியாது|இயலாது|முடியவில்லை|இயலவில்லை}",
        "{எனக்கு|எனக்குத்} {தெரியாது|தெரியவில்லை}",
        "{ஆவணத்தில்|ஆவணங்களில்|ஆவணங்களிலும்} …2 இல்லை",
    ),
    "te": (
        "{సమాచారం|వివరాలు} …2 {లేదు|లేవు|ఇవ్వలేదు}",  # "ఈ సమాచారం అందుబాటులో లేదు"
        "{పేర్కొన*లేదు|ప్రస్తావించ*లేదు}",  # "పేర్కొనబడలేదు": is not mentioned
        "{చెప్పలేను|చెప్పలేము|చెప్పలేకపోతున్నాను}",
        "{సమాధానం|జవాబు} {ఇవ్వలేను|ఇవ్వలేము|చెప్పలేను}",
        "నాకు {తెలియదు|తెలియలేదు}",
    ),
    "kn": (
        "{ಮಾಹಿತಿ|ವಿವರ|ವಿವರಗಳು} …2 {ಇಲ್ಲ|ಲಭ್ಯವಿಲ್ಲ|ನೀಡಲಾಗಿಲ್ಲ}",
        "ಉಲ್ಲೇಖ*ಲ್ಲ",  # "ಉಲ್ಲೇಖಿಸಲಾಗಿಲ್ಲ": is not mentioned; "ಉಲ್ಲೇಖವಿಲ್ಲ": no mention
        "{ಹೇಳಲು|ಉತ್ತರಿಸಲು|ತಿಳಿಸಲು} {ಸಾಧ್ಯವಿಲ್ಲ|ಆಗುವುದಿಲ್ಲ|ಸಾಧ್ಯವಾಗುತ್ತಿಲ್ಲ}",
        "ನನಗೆ {ಗೊತ್ತಿಲ್ಲ|ತಿಳಿದಿಲ್ಲ}",
    ),
    "ml": (
        "{വിവരം|വിവരങ്ങൾ|വിവരങ്ങളൊന്നും|വിവരമൊന്നും} …2 {ഇല്ല|ലഭ്യമല്ല|നൽകിയിട്ടില്ല}",
        "{വിവരമില്ല|വിവരങ്ങളില്ല}",
        "പരാമർശ*ല്ല",  # "പരാമർശിച്ചിട്ടില്ല": is not mentioned; "പരാമർശമില്ല": no mention
        "{പറയാൻ|ഉത്തരം നൽകാൻ|മറുപടി നൽകാൻ} {കഴിയില്ല|സാധ്യമല്ല|കഴിയുന്നില്ല}",
        "{എനിക്കറിയില്ല|എനിക്ക് അറിയില്ല}",
    ),
    "gu": (
        "{માહિતી|વિગત|વિગતો} …2 નથી",  # "આ માહિતી ઉપલબ્ધ નથી"
        "ઉલ્લેખ …2 નથી",  # "ઉલ્લેખ કરવામાં આવ્યો નથી"
        "{જણાવી|કહી} {શકતો|શકતી|શકું|શકીએ} નથી",
        "જવાબ આપી {શકતો|શકતી|શકું|શકીએ} નથી",
        "મને …1 {ખબર|જાણ} નથી",
    ),
    "fr": (
        "{je|nous} ne {peux|pouvons|puis} pas {répondre|trouver|dire|déterminer|confirmer|préciser|indiquer}",
        "{je|nous} ne {sais|savons} pas",
        "{je|nous} n {ai|avons} pas …2 {information|informations|détails|données|réponse|renseignements}",
        "{aucune|pas d} {information|informations|mention|précision|donnée|données}",
        "n est pas {mentionné|mentionnée|mentionnés|mentionnées|précisé|précisée|indiqué|indiquée|spécifié"
        "|spécifiée}",
        "ne {mentionne|mentionnent|précise|précisent|indique|indiquent} pas",
    ),
    "es": (
        "no {puedo|podemos|es posible} {responder|contestar|encontrar|determinar|confirmar|decir|precisar}",
        "no [lo] {sé|sabemos}",
        "no se {menciona|mencionan|especifica|especifican|indica|detalla|precisa}",
        "no {está|están|es|son} {mencionado|mencionada|mencionados|mencionadas|especificado|especificada"
        "|especificados|especificadas|indicado|indicada}",
        "no {tengo|tenemos|hay|dispongo de|existe} …1 {información|informacion|datos|detalles|mención}",
        "{ninguna|sin} {información|mención}",
    ),
    "de": (
        "{ich|wir} {kann|können} …4 nicht {beantworten|finden|sagen|bestimmen|bestätigen|angeben"
        "|feststellen}",
        "{ich|wir} {weiß|wissen} [es|das] nicht",
        "keine {informationen|information|angaben|hinweise|daten|erwähnung}",
        "nicht {erwähnt|angegeben|genannt|spezifiziert}",
    ),
    "pt": (
        "não {posso|podemos|consigo|é possível} {responder|encontrar|determinar|confirmar|dizer|informar}",
        "não sei",
        "não {há|tenho|temos|existe|existem|encontrei} …1 {informação|informações|dados|detalhes|menção}",
        "não {é|está|foi|são|estão|foram} {mencionado|mencionada|mencionados|mencionadas|especificado"
        "|especificada|especificados|especificadas|indicado|indicada|informado|informada}",
        "nenhuma {informação|menção}",
    ),
    "it": (
        "non {posso|possiamo|riesco a|è possibile} {rispondere|trovare|determinare|confermare|dire}",
        "non [lo] so",
        "non {ho|abbiamo|ci sono|c è} …1 {informazioni|informazione|dati|dettagli}",
        "non {è|sono|viene|vengono} {menzionato|menzionata|menzionati|specificato|specificata|specificati"
        "|indicato|indicata|indicati|riportato|riportata}",
        "nessuna {informazione|menzione}",
    ),
}
LANGUAGES = tuple(PHRASES)


def find_refusal(text: str) -> Refusal | None:
    """The first refusal phrase in `text` (any language), with its span in `text`; None when it has none:
    the earliest of the lexicon's phrases (read over the whole reply) and its roles (read clause by
    clause), the phrase when the two overlap."""
    text = without_citations(text)
    seen = unicode.normalise(text)
    found = find_in_normalised(seen)
    phrase = None
    if found is not None:
        start, end = found.seen_span
        phrase = dataclasses.replace(found, span=locate(text, seen, start, end))
    role = find_role(text)
    if phrase is None or role is None:
        return phrase or role
    if phrase.span is None or role.span is None:
        return phrase  # (the phrase cannot be placed in the original: it decides, as it did alone)
    return role if role.span[1] <= phrase.span[0] else phrase


def is_refusal(text: str) -> bool:
    return find_refusal(text) is not None


# A citation written in brackets ("[Source: policy, p.4]", "[2]"): no words of the reply's own. Left in,
# its "Source" ends phrases the reply never says ("... not covered in this Benefit. [Source" read as
# "not covered in this ... source").
_BRACKETED = regex.compile(r"\[[^\[\]\n]{0,300}\]")


def without_citations(text: str) -> str:
    """`text` with each bracketed citation blanked by as many spaces (every offset stays where it was)."""
    blanked: str = _BRACKETED.sub(lambda found: " " * len(found.group()), text)
    return blanked


def find_in_normalised(normalised: str) -> Refusal | None:
    """The first of ``PHRASES`` in text already under the unicode profile (``unicode.normalise``); its
    `span` is None (only the normalised text is known here). The roles need the reply's punctuation to
    see its clauses: ``find_role`` reads them, ``find_refusal`` both."""
    pattern, owners = _lexicon()
    # Every word of a phrase is matched with the space before it, so the text gets one in front.
    found = pattern.search(f" {normalised}")
    if found is None:
        return None
    lang, phrase = owners[found.lastgroup or ""]
    start, end = found.start(), found.end() - 1  # in the padded text, less the leading space
    return Refusal(phrase, lang, normalised[start:end], (start, end))


@functools.cache
def _lexicon() -> tuple[regex.Pattern[str], dict[str, tuple[str, str]]]:
    """One pattern for every phrase, a named group each, and each group's (language, phrase)."""
    return compile_lexicon(PHRASES)


__all__ = [
    "LANGUAGES",
    "PHRASES",
    "SIGNATURE",
    "VERSION",
    "find_in_normalised",
    "find_refusal",
    "is_refusal",
]

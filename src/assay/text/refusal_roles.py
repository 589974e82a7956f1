"""The roles of the refusal lexicon: who says the source is silent, kept apart from the set phrases
(``text.refusals``) because they are a grammar of subjects and verbs, read clause by clause.

A careful reader's rule, not a list of sentences: a reply declines when a negated verb of saying,
showing or finding has the source or the speaker as its subject ("the brochure doesn't name ...", "the
SLA does not specify ...", "I couldn't find ...", "it isn't stated in the CIS"), or when it says there is
no information, mention or detail. A negated predicate about the world answers ("maternity is not
covered", "monthly subscriptions are not refundable", "SSO is not included in the Basic plan"), and so
does a negated verb of granting whose subject is the agreement ("the policy does not cover dental", "the
plan doesn't include SSO"). So the roles:

- a *text* (document, brochure, CIS, context, page, website, price list, ...) is only ever a source:
  negated, any verb of saying (say, mention, name, list, specify ...) or of conveying (give, provide,
  include, contain, have ...) declines, unless what it does not give is a benefit ("the policy documents
  do not provide cover for obesity treatment" answers);
- an *agreement* (policy, plan, contract, SLA, terms, schedule, section ...) is a source when it says and
  a party when it grants: a negated verb of saying declines ("the policy does not list network
  hospitals"), one of conveying only with information as its object ("the policy does not provide any
  information on ..."); "the policy doesn't cover X" is an answer;
- "it" and "they" are taken for the documents with a verb of saying only (nothing but a text says or
  mentions; "it does not include dental" is about the plan): the judgement call, written down;
- the speaker ("I", "we") declines with a negated verb of finding or knowing ("I couldn't find", "we did
  not locate", "I found no information");
- a passive "is not stated/mentioned/given/provided/available in <a text>" declines; "in <an agreement>"
  only with a verb of saying ("is not specified in the policy"; "is not included in the plan" answers).

Roles are read within one clause (the reply cut at , ; : . ! ? and the like, so "As per the policy
document, the insured does not disclose ..." has no source subject), and a phrase's part before ``=>``
is its subject: it must come right before, but the phrase's words (what a trace shows) are the
negated verb alone ("doesn't mention").

``find_refusal`` (``text.refusals``) reads these beside the set phrases of ``PHRASES``; a change to any
list here bumps ``refusals.VERSION`` (it is in the ``refusal`` metric's signature).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

import regex

from . import unicode
from .refusal_notation import Refusal, compile_lexicon, locate

_TEXT = (
    "{document|documents|doc|docs|documentation|source|sources|text|texts|context|contexts|page|pages"
    "|webpage|passage|passages|excerpt|excerpts|extract|extracts|snippet|snippets|chunk|chunks|material"
    "|materials|content|contents|wording|wordings|brochure|brochures|leaflet|leaflets|cis|manual|manuals"
    "|guide|guides|handbook|guidebook|faq|faqs|website|site|sheet|sheets|datasheet|factsheet|prospectus"
    "|pdf|pdfs|file|files|booklet|pamphlet|flyer|catalogue|catalog|records"
    "|information|data|knowledge base|price list|pricelist|rate card}"
)
_AGREEMENT = (
    "{policy|policies|plan|plans|agreement|agreements|contract|contracts|sla|slas|terms|conditions"
    "|certificate}"
)
_PART = "{schedule|table|tables|annexure|appendix|section|sections|clause|clauses}"  # says, never grants
_PRONOUN = "{it|they|this|these}"
# what may stand between the subject noun and its verb: "the documents you shared do not", "the
# brochure itself doesn't", "the CIS on page 2 does not" (no free gap: "the policy holder does not")
_AFTER_SUBJECT = (
    "[{itself|themselves|provided|given|shared|attached|supplied|retrieved|available|above|here|cited"
    "|referenced|uploaded|in question|on page *|page *|p *}] [{you|i|we} {provided|shared|gave|uploaded"
    "|sent|attached|cited|referenced|retrieved|have|had}]"
)
_NOT_BASE = (  # before a verb's base form: "does not mention", "can't tell", "fails to specify"
    "{does not|do not|doesn t|don t|doesnt|dont|did not|didn t|didnt|cannot|can not|can t|cant|could not"
    "|couldn t|will not|won t|fails to|fail to|failed to} [{*ly|seem to|seems to|appear to|appears to|even"
    "|in fact}] [*ly]"
)
_NOT_PARTICIPLE = "{has not|have not|hasn t|haven t|had not|hadn t} [*ly]"
_IS_NOT = (
    "{{is|are|was|were} [*ly] not|isn t|aren t|wasn t|weren t|isnt|arent|s not|re not|has not been"
    "|have not been|hasn t been|haven t been|had not been} [*ly]"
)
_SAY = (
    "{say|state|mention|specify|name|list|indicate|clarify|disclose|detail|describe|define|discuss"
    "|address|explain|spell out|set out|lay out|quote|cite|identify|show|reveal|tell|report|document"
    "|enumerate|elaborate|outline|refer to|reference|quantify|itemise|itemize|break down|note|confirm"
    "|stipulate|answer|go into|touch on|talk about}"
)
_SAYS = (
    "{says|states|mentions|specifies|names|lists|indicates|clarifies|discloses|details|describes|defines"
    "|discusses|addresses|explains|spells out|sets out|quotes|cites|identifies|shows|reveals|tells"
    "|reports|documents|enumerates|outlines|refers to|references|quantifies|itemises|itemizes|notes"
    "|confirms|stipulates|answers|mention|say|state|specify|list}"
)
_SAID_PURE = (  # participles of saying that never mean "granted" ("listed in the plan" may)
    "{said|stated|mentioned|specified|named|disclosed|detailed|described|defined|discussed|addressed"
    "|explained|clarified|quoted|cited|spelled out|spelt out|stipulated|indicated|quantified|referenced"
    "|referred to|documented|answered}"
)
_SAID = (
    "{said|stated|mentioned|specified|named|disclosed|detailed|described|defined|discussed|addressed"
    "|explained|clarified|quoted|cited|spelled out|spelt out|stipulated|indicated|quantified|referenced"
    "|referred to|documented|answered|listed|shown|set out|laid out|identified|revealed|reported"
    "|enumerated|outlined|itemised|itemized|broken down|noted|confirmed|published|told}"
)
_GIVEN = (
    "{given|provided|included|contained|offered|supplied|shared|presented|available|present|found"
    "|featured}"
)
_CONVEY = "{give|provide|include|contain|have|offer|carry|feature|supply|share|present|hold|publish}"
_BENEFIT = (  # what a policy grants: "does not provide cover for", "does not include any benefit"
    "!{[any|a|an|the|such|this|that] [*ly] {cover|coverage|covers|benefit|benefits|insurance|protection"
    "|reimbursement|compensation|payment|payout|refund|refunds|indemnity|discount|discounts|credit|credits"
    "|access|support|service|services|treatment|option|facility|waiver}}"
)
_ABOUT = (  # information as an object: "no information", "does not give details"
    "{information|info|details|detail|specifics|mention|reference|indication|data|breakdown|guidance"
    "|clarity|clarification|explanation|description|definition|answer|figure|figures|statement"
    "|particulars|list|listing}"
)
_IN = (
    "[*ly] [anywhere] {in|within|on|from|anywhere in|throughout|inside} [the|this|these|that|those|any|my"
    "|your|our|its|their]"
)

# Texts that "cover" a topic when they discuss it: a policy's own document or wording covers as a grant
# ("the policy documents don't cover maternity", "maternity is not covered in the policy document").
_DISCUSSED = (  # (not a brochure, a CIS, a leaflet: they describe a product, whose "cover" is its grant)
    "context|contexts|passage|passages|excerpt|excerpts|snippet|snippets|chunk|chunks|text|texts|source"
    "|sources|page|pages|material|materials|pdf|pdfs|file|files"
)
_DISCUSSING = (
    "{{the|these|those|your|my|provided|retrieved|available|given|shared|attached|supplied|uploaded|all"
    "|both} {document|documents}|" + _DISCUSSED + "}"
)
_IN_DISCUSSING = (
    "{in|within} [the|these|this|your|my|any] [provided|retrieved|available|given|shared|attached|supplied"
    "|uploaded] {document|documents|" + _DISCUSSED + "}"
)
_SUBJECT = "{" + "|".join(part[1:-1] for part in (_TEXT, _AGREEMENT, _PART, _PRONOUN)) + "}"

ROLES: Mapping[str, tuple[str, ...]] = {
    "en": (
        # a source says nothing: "the brochure doesn't name ...", "the SLA does not specify ..."
        "{" + _TEXT[1:-1] + "|" + _AGREEMENT[1:-1] + "|" + _PART[1:-1] + "|" + _PRONOUN[1:-1] + "} "
        + _AFTER_SUBJECT + " => " + _NOT_BASE + " " + _SAY,
        "{" + _TEXT[1:-1] + "|" + _AGREEMENT[1:-1] + "|" + _PART[1:-1] + "|" + _PRONOUN[1:-1] + "} "
        + _AFTER_SUBJECT + " => " + _NOT_PARTICIPLE + " " + _SAID,
        "{" + _TEXT[1:-1] + "|" + _AGREEMENT[1:-1] + "|" + _PART[1:-1] + "|" + _PRONOUN[1:-1] + "} "
        + _AFTER_SUBJECT + " => {never|nowhere} " + _SAYS,
        "{" + _TEXT[1:-1] + "|" + _AGREEMENT[1:-1] + "|" + _PART[1:-1] + "|" + _PRONOUN[1:-1] + "} "
        + _AFTER_SUBJECT + " => " + _SAYS + " [{absolutely|really}] nothing",
        # a text gives nothing of it: "the brochure doesn't give a UIN" (not "... provide cover for")
        _TEXT + " " + _AFTER_SUBJECT + " => " + _NOT_BASE + " " + _CONVEY + " " + _BENEFIT,
        # a source gives no information: "the policy does not provide any information on ..."
        "{" + _TEXT[1:-1] + "|" + _AGREEMENT[1:-1] + "|" + _PART[1:-1] + "|" + _PRONOUN[1:-1] + "} "
        + _AFTER_SUBJECT + " => " + _NOT_BASE + " {" + _CONVEY[1:-1] + "|cover} [any|a|an|the|much"
        "|specific|such|further|more|clear|explicit|detailed|exact|precise] [specific|further|detailed]"
        " " + _ABOUT,
        "{" + _TEXT[1:-1] + "|" + _AGREEMENT[1:-1] + "|" + _PART[1:-1] + "|" + _PRONOUN[1:-1] + "} "
        + _AFTER_SUBJECT + " => {makes|make|made|gives|give|gave|provides|provide|provided|contains|contain"
        "|contained|has|have|had|offers|offer|includes|include|holds|hold|carries|carry} no [specific"
        "|further|such|clear|explicit|detailed|direct] " + _ABOUT,
        # a text does not cover the question (not "cover dental": the insurance verb is the answer's)
        "{" + _TEXT[1:-1] + "|" + _PRONOUN[1:-1] + "} " + _AFTER_SUBJECT + " => " + _NOT_BASE
        + " {cover|address} {this|that|it|the question|this question|the topic|this topic|the subject"
        "|this point|the matter|this matter|such}",
        # a text that does not discuss it: "the documents don't cover network hospitals in Pune", "this
        # isn't covered in the context" (not "the policy documents don't cover maternity": a grant)
        _DISCUSSING + " " + _AFTER_SUBJECT + " => " + _NOT_BASE + " cover " + _BENEFIT,
        _IS_NOT + " covered " + _IN_DISCUSSING,
        # a source lacks it: "the brochure lacks this detail" (not "the plan lacks SSO")
        _SUBJECT + " " + _AFTER_SUBJECT + " => {lacks|lack|lacked|is missing|are missing} [any|this|that|the"
        "|such|a|an] [specific|further|such|clear|explicit|detailed] " + _ABOUT,
        # it is not in a text: "that information isn't in the documents provided"
        "{isn t|aren t|wasn t|weren t|isnt|arent|s not|re not|is not|are not} [anywhere] {in|within|among"
        "|inside} [the|these|this|my|your|any] …2 " + _TEXT,
        # nothing of it is said in a text: "no UIN is mentioned in the brochure" (not "if no nominee is
        # mentioned, ...": only in a text)
        "no …3 => {is|are|was|were|has been|have been} " + "{" + _SAID[1:-1] + "|" + _GIVEN[1:-1] + "} "
        + _IN + " …3 " + _TEXT,
        # information is not to be had: "information on this is not available" (not "if the information is
        # not provided within 30 days": a claimant's duty)
        "{information|info|details|data|specifics} …3 => " + _IS_NOT + " {available|known}",
        # it does not appear in a text: "the UIN does not appear in the brochure"
        _NOT_BASE + " {appear|feature|figure|show up|come up} " + _IN + " …2 " + _TEXT,
        # a passive: "is not stated in the CIS", "isn't given anywhere in the documents", "is not
        # specified in the policy" (but "is not included in the plan" answers)
        _IS_NOT + " " + _SAID + " " + _IN + " …3 " + _TEXT,
        _IS_NOT + " " + _GIVEN + " " + _IN + " …3 " + _TEXT,
        _IS_NOT + " " + _SAID_PURE + " " + _IN + " …3 " + _AGREEMENT,
        # the answer itself is not given: "No, the answer is not provided." (not "if the information is
        # not provided within 30 days": a claimant's duty, so information nouns count only "in" a text)
        "{answer|answers|figure|figures|specifics|exact figure|exact number|exact amount|exact value} => "
        + _IS_NOT + " {" + _SAID[1:-1] + "|" + _GIVEN[1:-1] + "|known|clear}",
        # the speaker did not find it: "I couldn't find", "we did not locate", "I have not been able to"
        "{i|we} …2 => {did not|didn t|didnt|do not|don t|dont|have not|haven t|had not|hadn t"
        "|could not|couldn t|cannot|can not|can t|cant|was unable to|were unable to|{wasn t|weren t|was not"
        "|were not|m not|am not|are not|re not|have not been|haven t been|ve not been} able to} [*ly]"
        " [been able to]"
        " {find|found|locate|located|spot|spotted|come across|came across|identify|identified|trace|traced"
        "|{see|seen} {[any|a|an|the] [specific|further|such|clear|explicit|direct|relevant] " + _ABOUT[1:-1]
        + "|{it|this|that|them} " + _IN + " …2 " + _TEXT + "}}",
        "{i|we} [could|can|did] => {find|found|see|saw|locate|located|spot|spotted} {nothing|no [specific"
        "|further|such|clear|explicit|direct|relevant] " + _ABOUT + "}",
        "{there|i|we} {is|are|was|were|s|seems to be|appears to be|seem to be|appear to be|see|saw"
        "|found|find} => no [specific|further|such|clear|explicit|direct|relevant|other] " + _ABOUT,
        # nothing in the sources says: "nothing in the documents mentions it", "none of the pages say"
        "nothing {in|within|on} [the|these|this|any|my|your] …2 " + _TEXT + " " + _SAYS,
        "{none of|neither of|neither|no} [the|these|this|my|your|its|their] …2 {" + _TEXT[1:-1] + "|"
        + _AGREEMENT[1:-1] + "} " + _AFTER_SUBJECT + " {" + _SAYS[1:-1] + "|" + _SAY[1:-1] + "}",
        # a list item: "Claim ratio: not mentioned in the policy wording"
        "^ not [*ly] " + _SAID_PURE + " " + _IN + " …3 {" + _AGREEMENT[1:-1] + "|wording|wordings}",
        # a bare passive in a note or a list: "Pune hospitals: not listed in the brochure" (not "any
        # treatment not specified in the policy wording shall not be payable": a policy's own sentence)
        "not [*ly] {" + _SAID[1:-1] + "|" + _GIVEN[1:-1] + "} [anywhere] {in|within|on|from|throughout} {[the"
        "|this|these|any|my|your] [provided|retrieved|available|given|shared|attached|supplied|uploaded]"
        " {brochure|brochures|leaflet|leaflets|cis|website|site|faq|faqs|guide|guides|manual|manuals|sheet"
        "|datasheet|factsheet|prospectus|booklet|pamphlet|flyer|catalogue|catalog|price list|pricelist|rate"
        " card|knowledge base|" + _DISCUSSED + "}|{the|these|those|your|my|any} [provided|retrieved|available"
        "|given|shared|attached|supplied|uploaded] {document|documents}}",
        # its subject before "and"/"but": "The text is about AYUSH and does not address maternity"
        "{and|but} => {does not|do not|doesn t|don t|doesnt|dont|did not|didn t|didnt} [*ly] {say|state"
        "|mention|specify|name|list|indicate|detail|describe|define|address|discuss|quote|cite}",
        # its subject cut off by a comma: "The brochure, unfortunately, doesn't name ..." (not "...,
        # does not disclose": a proposer's duty in a policy's own sentence)
        "^ {does not|do not|doesn t|don t|doesnt|dont|did not|didn t|didnt} [*ly] {say|state|mention"
        "|specify|name|list|indicate|detail|describe|define|address|discuss|quote|cite}",
    ),
    "hi": (
        # "ब्रोशर में पुणे के नेटवर्क अस्पतालों के नाम नहीं दिए गए हैं", "पॉलिसी में यह नहीं बताया गया"
        "{दस्तावेज़|दस्तावेज़ों|दस्तावेज|दस्तावेजों|संदर्भ|स्रोत|स्रोतों|पाठ|पृष्ठ|पेज|ब्रोशर|पुस्तिका|वेबसाइट|सामग्री|पॉलिसी"
        "|पालिसी|योजना|प्लान|अनुबंध} {में|मे} …8 => {नहीं|नही} {बताया|बताई|बताए|बताये|लिखा|लिखी|लिखे|कहा|कही|कहे"
        "|दर्शाया|दर्शाई|दर्शाए|दर्शाये}",
        "{दस्तावेज़|दस्तावेज़ों|दस्तावेज|दस्तावेजों|संदर्भ|स्रोत|स्रोतों|पाठ|पृष्ठ|पेज|ब्रोशर|पुस्तिका|वेबसाइट|सामग्री}"
        " {में|मे} …8 => {नहीं|नही} {दिया|दी|दिए|दिये|मिला|मिली|मिले}",
        "{दस्तावेज़|दस्तावेज़ों|दस्तावेज|दस्तावेजों|संदर्भ|स्रोत|स्रोतों|पाठ|पृष्ठ|पेज|ब्रोशर|पुस्तिका|वेबसाइट|सामग्री|पॉलिसी"
        "|पालिसी|योजना|प्लान|अनुबंध} {में|मे} …8 => {उल्लेखित|उल्लिखित|निर्दिष्ट|वर्णित} {नहीं|नही}",
        # the source as subject: "दस्तावेज़ इसके बारे में कुछ नहीं कहता"
        "{दस्तावेज़|दस्तावेज़ों|दस्तावेज|दस्तावेजों|स्रोत|ब्रोशर|पुस्तिका|वेबसाइट|पॉलिसी|पालिसी} …6 => {नहीं|नही}"
        " {बताता|बताती|बताते|कहता|कहती|कहते}",
        "{ज़िक्र|जिक्र} …1 {नहीं|नही}",  # "इसका ज़िक्र नहीं है": no mention
        # the speaker did not find it: "मुझे यह जानकारी नहीं मिली", "मैं इसे ढूंढ नहीं पाया"
        "मुझे …6 => {नहीं|नही} {मिला|मिली|मिले|मिल}",
        "{ढूंढ|ढूँढ|खोज} {नहीं|नही} {पाया|पाई|पाए|पाये|सका|सकी|सके}",
        "{नहीं|नही} {ढूंढ|ढूँढ|खोज} {पाया|पाई|पाए|पाये|सका|सकी|सके}",
    ),
    "mr": (
        "{दस्तऐवजात|दस्तऐवजांमध्ये|दस्तावेजात|कागदपत्रात|कागदपत्रांमध्ये|माहितीपत्रकात|ब्रोशरमध्ये|पॉलिसीमध्ये"
        "|संदर्भात} …8 => {नमूद|सांगितलेले|सांगितलेली|सांगितले|लिहिलेले} …2 {नाही|नाहीत}",
        "{दस्तऐवजात|दस्तऐवजांमध्ये|दस्तावेजात|कागदपत्रात|कागदपत्रांमध्ये|माहितीपत्रकात|ब्रोशरमध्ये|संदर्भात}"
        " …8 => {दिलेले|दिलेली|दिलेला} …2 {नाही|नाहीत}",
        "मला …6 => {सापडले|सापडली|सापडला|मिळाले|मिळाली|मिळाला} नाही",
    ),
    "bn": (
        "{নথিতে|নথিগুলিতে|নথিগুলোতে|ব্রোশারে|ব্রোশিওরে|পুস্তিকায়|প্রসঙ্গে|পলিসিতে} …8 => {বলা নেই|বলা হয়নি|উল্লেখ"
        " নেই|উল্লেখ করা হয়নি}",
        "{নথিতে|নথিগুলিতে|নথিগুলোতে|ব্রোশারে|ব্রোশিওরে|পুস্তিকায়|প্রসঙ্গে} …8 => {দেওয়া নেই|দেওয়া হয়নি}",
        "খুঁজে {পাইনি|পেলাম না|পাচ্ছি না|পাওয়া যায়নি}",
    ),
    "ta": (
        "{ஆவணத்தில்|ஆவணங்களில்|சிற்றேட்டில்|பாலிசியில்} …8 => {கூறப்படவில்லை|சொல்லப்படவில்லை}",
        "{ஆவணத்தில்|ஆவணங்களில்|சிற்றேட்டில்} …8 => {தரப்படவில்லை|வழங்கப்படவில்லை}",
        "{கண்டுபிடிக்க|கண்டறிய} {முடியவில்லை|இயலவில்லை}",
    ),
    "te": (
        "{పత్రంలో|పత్రాలలో|పత్రాల్లో|బ్రోచర్‌లో|పాలసీలో} …8 => {చెప్పలేదు|పేర్కొనలేదు|చెప్పబడలేదు}",
        "{పత్రంలో|పత్రాలలో|పత్రాల్లో|బ్రోచర్‌లో} …8 => {ఇవ్వలేదు|ఇవ్వబడలేదు}",
        "{కనుగొనలేకపోయాను|కనుగొనలేకపోయాము|కనుగొనలేకపోయాం}",
    ),
    "kn": (
        "{ದಾಖಲೆಯಲ್ಲಿ|ದಾಖಲೆಗಳಲ್ಲಿ|ಪಾಲಿಸಿಯಲ್ಲಿ} …8 => {ಹೇಳಲಾಗಿಲ್ಲ|ತಿಳಿಸಲಾಗಿಲ್ಲ}",
        "{ದಾಖಲೆಯಲ್ಲಿ|ದಾಖಲೆಗಳಲ್ಲಿ} …8 => ನೀಡಲಾಗಿಲ್ಲ",
        "{ಕಂಡುಹಿಡಿಯಲು|ಹುಡುಕಲು} {ಸಾಧ್ಯವಾಗಲಿಲ್ಲ|ಆಗಲಿಲ್ಲ}",
    ),
    "ml": (
        "{രേഖയിൽ|രേഖകളിൽ|പോളിസിയിൽ} …8 => {പറഞ്ഞിട്ടില്ല|വ്യക്തമാക്കിയിട്ടില്ല}",
        "{രേഖയിൽ|രേഖകളിൽ} …8 => നൽകിയിട്ടില്ല",
        "കണ്ടെത്താൻ {കഴിഞ്ഞില്ല|സാധിച്ചില്ല|കഴിയുന്നില്ല}",
    ),
    "gu": (
        "{દસ્તાવેજમાં|દસ્તાવેજોમાં|બ્રોશરમાં|પોલિસીમાં} …8 => {જણાવ્યું|જણાવેલ|દર્શાવ્યું|દર્શાવેલ|લખ્યું|લખેલ} …2 નથી",
        "{દસ્તાવેજમાં|દસ્તાવેજોમાં|બ્રોશરમાં} …8 => {આપ્યું|આપેલ|આપવામાં} …2 નથી",
        "મને …6 => {મળ્યું|મળી|મળ્યા|મળ્યો} નથી",
    ),
    "fr": (
        "{document|documents|texte|textes|source|sources|contexte|brochure|dépliant|page|pages|passage"
        "|passages|extrait|extraits|guide|site|notice|fiche|manuel|police|contrat|conditions} …2 => ne [le"
        "|la|les|l|en|y] {mentionne|mentionnent|précise|précisent|indique|indiquent|dit|disent|cite|citent"
        "|nomme|nomment|liste|listent|spécifie|spécifient|détaille|détaillent|énumère|énumèrent|aborde"
        "|abordent|évoque|évoquent} {pas|rien|nulle part|aucun|aucune}",
        "{document|documents|texte|textes|source|sources|contexte|brochure|dépliant|page|pages|passage"
        "|passages|extrait|extraits|guide|site|notice|fiche|manuel} …2 => ne [le|la|les|l|en|y] {donne"
        "|donnent|fournit|fournissent|contient|contiennent} {pas|aucun|aucune}",
        "{je|nous} => {n ai|n avons|ne} [pas] {trouvé|pu trouver|réussi à trouver|trouve|trouvons} {pas"
        "|aucun|aucune|rien}",
        "{je|nous} => n {ai|avons} {pas trouvé|pas pu trouver|trouvé aucun|trouvé aucune|rien trouvé}",
    ),
    "es": (
        "{documento|documentos|texto|textos|fuente|fuentes|contexto|folleto|página|páginas|pasaje|pasajes"
        "|guía|sitio|póliza|contrato|condiciones} …2 => no [lo|la|los|las|le|les] {menciona|mencionan"
        "|especifica|especifican|indica|indican|dice|dicen|nombra|nombran|enumera|enumeran|detalla"
        "|detallan|cita|citan|aclara|aclaran|precisa|precisan}",
        "{documento|documentos|texto|textos|fuente|fuentes|contexto|folleto|página|páginas|pasaje|pasajes"
        "|guía|sitio} …2 => no [lo|la|los|las] {da|dan|proporciona|proporcionan|contiene|contienen|incluye"
        "|incluyen|ofrece|ofrecen}",
        "no [lo|la|los|las] {encontré|encontramos|he encontrado|hemos encontrado|pude encontrar|pudimos"
        " encontrar|encuentro|logré encontrar|localicé}",
    ),
    "de": (
        "{dokument|dokumente|dokumenten|text|texte|quelle|quellen|kontext|broschüre|seite|seiten|unterlagen"
        "|police|vertrag|bedingungen|faltblatt|leitfaden|website|webseite} …1 => {nennt|nennen|erwähnt"
        "|erwähnen|sagt|sagen|listet|listen|beschreibt|beschreiben|spezifiziert|spezifizieren|führt|führen"
        "|gibt|geben|enthält|enthalten} …4 {nicht|keine|keinen|kein|nichts} !{versichert|gedeckt|erstattet"
        "|deckung|leistung|leistungen|erstattung|versicherungsschutz}",
        "{ich|wir} …4 {nicht|keine|keinen|nichts} {gefunden|finden|auffinden|entdeckt|entdecken}",
        "{ich|wir} {konnte|konnten|habe|haben} …4 nicht {finden|gefunden|feststellen|festgestellt}",
    ),
    "pt": (
        "{documento|documentos|texto|textos|fonte|fontes|contexto|folheto|página|páginas|guia|site|apólice"
        "|contrato} …2 => não [o|a|os|as] {menciona|mencionam|especifica|especificam|indica|indicam|diz"
        "|dizem|informa|informam|lista|listam|cita|citam|detalha|detalham|nomeia|nomeiam}",
        "não [o|a|os|as] {encontrei|encontramos|consegui encontrar|conseguimos encontrar|localizei}",
    ),
    "it": (
        "{documento|documenti|testo|testi|fonte|fonti|contesto|opuscolo|brochure|pagina|pagine|guida|sito"
        "|polizza|contratto} …2 => non [lo|la|li|le|ne] {menziona|menzionano|specifica|specificano|indica"
        "|indicano|dice|dicono|riporta|riportano|elenca|elencano|cita|citano|nomina|nominano|precisa"
        "|precisano}",
        "non [lo|la|li|le|ne] {ho trovato|abbiamo trovato|trovo|riesco a trovare|sono riuscito a trovare"
        "|sono riuscita a trovare}",
    ),
}


# Where a clause ends, for the roles (a subject and its verb stand in one clause): sentence ends, commas,
# semicolons, colons, dashes, brackets, quotes, line breaks, the danda.
_CLAUSE = regex.compile(r"[^.!?;:,()\[\]{}\"“”«»\u2014\u2013\n\r।॥؟،]+")


# Every role says "not" in its language: a clause without one of these words (or a word ending in a fused
# negation) is never searched, which keeps a long reply's search short. A role written without any of them
# must add its negation here (``test_every_role_says_not`` holds them to it).
NEGATORS = frozenset(
    unicode.normalise(word)
    for word in (
        "not", "t", "no", "nothing", "none", "neither", "never", "nowhere", "cannot", "cant", "couldnt",
        "doesnt", "dont", "didnt", "isnt", "arent", "wasnt", "werent", "hasnt", "havent", "hadnt", "wont",
        "fails", "fail", "failed", "lacks", "lack", "lacked", "missing", "unable",
        "नहीं", "नही", "नाही", "नाहीत", "নেই", "হয়নি", "পাইনি", "যায়নি", "না", "નથી",
        "pas", "rien", "aucun", "aucune", "ne", "n", "nicht", "kein", "keine", "keinen", "nichts", "não",
        "non",
    )
)  # fmt: skip
NEGATIVE_ENDINGS = tuple(
    unicode.normalise(end)
    for end in ("வில்லை", "முடியாது", "இயலாது", "లేదు", "లేను", "లేము", "లేక", "లేకపోయాను", "ಲ್ಲ", "ല്ല")
)


def _says_not(seen: str) -> bool:
    """Whether normalised text holds a negator of ``NEGATORS`` (or a word with a fused negation)."""
    return any(word in NEGATORS or word.endswith(NEGATIVE_ENDINGS) for word in seen.split())


def find_role(text: str) -> Refusal | None:
    """The first clause of `text` whose roles decline (``ROLES``), with its span in `text` (`seen_span`
    is in the clause's normalised text)."""
    pattern, owners = _roles()
    for clause in _CLAUSE.finditer(text):
        seen = unicode.normalise(clause.group())
        found = pattern.search(f" {seen}") if seen and _says_not(seen) else None
        if found is None:
            continue
        lang, phrase = owners[found.lastgroup or ""]
        start, end = found.start(), found.end() - 1
        span = locate(clause.group(), seen, start, end)
        placed = None if span is None else (clause.start() + span[0], clause.start() + span[1])
        return Refusal(phrase, lang, seen[start:end], (start, end), placed)
    return None


@functools.cache
def _roles() -> tuple[regex.Pattern[str], dict[str, tuple[str, str]]]:
    """One pattern for every role, a named group each, and each group's (language, phrase); read clause
    by clause."""
    return compile_lexicon(ROLES)


__all__ = ["NEGATIVE_ENDINGS", "NEGATORS", "ROLES", "find_role"]

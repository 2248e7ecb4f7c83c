// Grading on the caller's thread, synchronously (tests, scripts): verifyMath is called here, so importing this
// file loads the LaTeX parser. The trainer and the page's worker grade through an AnswerChecker instead (grade.ts,
// gradeEpisodes), which keeps the parser in the checker's own worker.

import type { Problem } from '../data/problem.ts';
import type { ExperimentConfig } from './config.ts';
import { judgeGrade, mathGrade, type Grade } from './grade.ts';
import { finalAnswerText, type Episode } from './protocol/episode.ts';
import { scoreGraded, type ScoredEpisode } from './train/episodes.ts';
import { verifyMath } from './verifier/index.ts';

/** The grade of `text` as the answer to `problem`: math through verifyMath, judge through its verdict. */
export function gradeAnswer(problem: Problem, text: string): Grade {
  if (problem.task === 'judge') return judgeGrade(problem, text);
  return mathGrade(verifyMath(problem.answer, text), text);
}

/** scoreGraded with each final answer graded here (gradeAnswer), unless `given` grades are passed. */
export function scoreEpisodes(
  config: ExperimentConfig,
  episodes: readonly Episode[],
  onePlanPerGroup: boolean,
  given?: readonly Grade[],
): ScoredEpisode[] {
  const grades =
    given ?? episodes.map((e) => gradeAnswer(e.problem, finalAnswerText(e, config.overflowAnswer === 'empty')));
  return scoreGraded(config, episodes, onePlanPerGroup, grades);
}
